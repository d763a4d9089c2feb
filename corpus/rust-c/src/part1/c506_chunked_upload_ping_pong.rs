//! case: double-buffered chunk upload: two pinned staging buffers, each with an event recorded after its copy; the event is synchronized before the host refills that buffer
//! expect: none
use cuda_lint_runtime::{Context, DeviceBuffer, Event, PinnedBuffer, Stream};

const CHUNK: usize = 1 << 20;

struct Slot {
    staging: PinnedBuffer<f32>,
    copied: Event,
}

pub struct PingPongUploader {
    ctx: Context,
    stream: Stream,
    slots: [Slot; 2],
}

impl PingPongUploader {
    pub fn new(ctx: &Context) -> cuda_lint_runtime::Result<Self> {
        let mk = || -> cuda_lint_runtime::Result<Slot> {
            Ok(Slot { staging: ctx.alloc_pinned::<f32>(CHUNK)?, copied: ctx.new_event()? })
        };
        Ok(Self { ctx: ctx.clone(), stream: ctx.new_stream()?, slots: [mk()?, mk()?] })
    }

    pub fn upload(&mut self, tensor: &[f32]) -> cuda_lint_runtime::Result<Vec<DeviceBuffer<f32>>> {
        let mut out = Vec::new();
        for (i, part) in tensor.chunks(CHUNK).enumerate() {
            let slot = &mut self.slots[i % 2];
            // The copy that last read this slot (two chunks ago) must be done.
            slot.copied.synchronize()?;
            slot.staging[..part.len()].copy_from_slice(part);
            let mut dev = self.ctx.alloc::<f32>(part.len())?;
            unsafe { self.stream.copy_htod_async(&mut dev, &slot.staging[..part.len()])? };
            self.stream.record_event(&slot.copied)?;
            out.push(dev);
        }
        self.stream.synchronize()?;
        Ok(out)
    }
}

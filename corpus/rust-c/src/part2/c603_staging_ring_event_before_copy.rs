//! case: a ring of pinned staging slots (runtime layer) guards reuse of each slot with an event, but records the event before enqueueing the upload from the slot, so waiting on it does not cover the copy and the host overwrites a slot the DMA may still read
//! expect: missing_sync=1

use cuda_lint_runtime::{Context, DeviceBuffer, Event, Kernel, LaunchConfig, PinnedBuffer, Result, Stream};

const SCALE_SRC: &str = r#"
extern "C" __global__ void normalize(float* x, float mean, float inv_std, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = (x[i] - mean) * inv_std;
}
"#;

struct Slot {
    host: PinnedBuffer<f32>,
    dev: DeviceBuffer<f32>,
    /// Marks when the slot may be refilled.
    reusable: Event,
}

pub struct Uploader {
    stream: Stream,
    kernel: Kernel,
    slots: Vec<Slot>,
    next: usize,
    batch_len: usize,
}

impl Uploader {
    pub fn new(ctx: &Context, depth: usize, batch_len: usize) -> Result<Self> {
        let stream = ctx.new_stream()?;
        let kernel = ctx.load_cuda(SCALE_SRC)?.function("normalize")?;
        let slots = (0..depth)
            .map(|_| {
                Ok(Slot {
                    host: ctx.alloc_pinned::<f32>(batch_len)?,
                    dev: ctx.alloc::<f32>(batch_len)?,
                    reusable: ctx.new_event()?,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Self { stream, kernel, slots, next: 0, batch_len })
    }

    /// Stages `batch` into the next slot and normalizes it on the device.
    pub fn push(&mut self, batch: &[f32], mean: f32, std: f32) -> Result<()> {
        assert_eq!(batch.len(), self.batch_len);
        let idx = self.next;
        self.next = (idx + 1) % self.slots.len();
        let slot = &mut self.slots[idx];

        // Wait until the slot's previous upload is done with the host buffer...
        slot.reusable.synchronize()?;
        slot.host.copy_from_slice(batch); // EXPECT: missing_sync

        // ...but the event is recorded before the copy that reads the slot.
        self.stream.record_event(&slot.reusable)?;
        unsafe { self.stream.copy_htod_async(&mut slot.dev, &slot.host)? };

        let n = self.batch_len as u32;
        let inv_std = 1.0 / std;
        unsafe {
            self.stream
                .launch(&self.kernel, LaunchConfig::for_num_elems(n), &[&slot.dev, &mean, &inv_std, &n])?
        };
        Ok(())
    }

    pub fn finish(&self) -> Result<()> {
        self.stream.synchronize()
    }
}

pub fn run(ctx: &Context, batches: &[Vec<f32>]) -> Result<()> {
    let len = batches.first().map_or(0, Vec::len);
    let mut up = Uploader::new(ctx, 2, len)?;
    for b in batches {
        let mean = b.iter().sum::<f32>() / b.len() as f32;
        let var = b.iter().map(|x| (x - mean) * (x - mean)).sum::<f32>() / b.len() as f32;
        up.push(b, mean, var.sqrt().max(1e-6))?;
    }
    up.finish()
}

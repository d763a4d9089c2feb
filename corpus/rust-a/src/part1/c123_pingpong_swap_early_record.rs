//! case: double buffering with std::mem::swap: the feeder records the buffer's event before enqueueing its upload, so waiting for that event before refilling does not cover the upload
//! expect: missing_sync=1
use cuda_lint_runtime::{Context, DeviceBuffer, Event, PinnedBuffer, Result, Stream};

struct Staged {
    buf: PinnedBuffer<f32>,
    free: Event,
}

pub struct DoubleBuffer {
    stream: Stream,
    front: Staged,
    back: Staged,
    dev: DeviceBuffer<f32>,
}

impl DoubleBuffer {
    pub fn new(ctx: &Context, n: usize) -> Result<Self> {
        let staged = |ctx: &Context| -> Result<Staged> { Ok(Staged { buf: ctx.alloc_pinned(n)?, free: ctx.new_event()? }) };
        Ok(Self { stream: ctx.new_stream()?, front: staged(ctx)?, back: staged(ctx)?, dev: ctx.alloc(n)? })
    }

    pub fn push(&mut self, frame: &[f32]) -> Result<()> {
        self.back.free.synchronize()?;
        self.back.buf[..frame.len()].copy_from_slice(frame); // EXPECT: missing_sync
        self.stream.record_event(&self.back.free)?; // too early: before the copy below
        // SAFETY: see the event above.
        unsafe { self.stream.copy_htod_async(&mut self.dev, &self.back.buf)? };
        std::mem::swap(&mut self.front, &mut self.back);
        Ok(())
    }

    pub fn finish(&self) -> Result<()> {
        self.stream.synchronize()
    }
}

//! case: a ping-pong readback swaps front and back with `mem::swap` one step too early and reads the buffer whose copy it just enqueued
//! expect: missing_sync=1
use std::mem;

use cuda_lint_runtime::{Context, DeviceBuffer, PinnedBuffer, Result, Stream};

pub struct PingPong {
    stream: Stream,
    front: PinnedBuffer<f32>,
    back: PinnedBuffer<f32>,
    frames: u64,
}

impl PingPong {
    pub fn new(ctx: &Context, n: usize) -> Result<Self> {
        Ok(Self { stream: ctx.new_stream()?, front: ctx.alloc_pinned(n)?, back: ctx.alloc_pinned(n)?, frames: 0 })
    }

    /// Meant to return the previous frame's mean while the current one downloads.
    pub fn tick(&mut self, current: &DeviceBuffer<f32>) -> Result<Option<f32>> {
        // The previous tick's copy (into what is now `front`) must be done before reusing it.
        self.stream.synchronize()?;
        // SAFETY: `back` is owned by `self`.
        unsafe { self.stream.copy_dtoh_async(&mut self.back, current)? };
        mem::swap(&mut self.front, &mut self.back);
        self.frames += 1;
        if self.frames == 1 {
            return Ok(None);
        }
        // After the swap, `front` is the buffer the copy above is still writing.
        let mean = self.front.iter().sum::<f32>() / self.front.len().max(1) as f32; // EXPECT: missing_sync
        Ok(Some(mean))
    }
}

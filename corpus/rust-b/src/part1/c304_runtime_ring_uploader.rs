//! case: a video uploader cycles pinned staging slots from a VecDeque and refills a slot whose previous upload may still be reading it
//! expect: missing_sync=1
use std::collections::VecDeque;

use cuda_lint_runtime::{Context, DeviceBuffer, PinnedBuffer, Result, Stream};

pub struct Uploader {
    stream: Stream,
    free: VecDeque<PinnedBuffer<u8>>,
    frames: Vec<DeviceBuffer<u8>>,
}

impl Uploader {
    pub fn new(ctx: &Context, slots: usize, frame_bytes: usize) -> Result<Self> {
        let stream = ctx.new_stream()?;
        let mut free = VecDeque::with_capacity(slots);
        let mut frames = Vec::with_capacity(slots);
        for _ in 0..slots {
            free.push_back(ctx.alloc_pinned::<u8>(frame_bytes)?);
            frames.push(ctx.alloc::<u8>(frame_bytes)?);
        }
        Ok(Self { stream, free, frames })
    }

    /// Uploads every frame the decoder yields, rotating through the staging slots.
    pub fn pump<I: Iterator<Item = Vec<u8>>>(&mut self, decoded: I) -> Result<usize> {
        let mut count = 0;
        for (i, frame) in decoded.enumerate() {
            let Some(mut slot) = self.free.pop_front() else { break };
            // The slot was handed back right after its last enqueue: that copy may still run.
            slot.copy_from_slice(&frame); // EXPECT: missing_sync
            let k = i % self.frames.len();
            let dst = &mut self.frames[k];
            // SAFETY: `slot` lives in `self.free` until the uploader is dropped.
            unsafe { self.stream.copy_htod_async(dst, &slot)? };
            self.free.push_back(slot);
            count += 1;
        }
        self.stream.synchronize()?;
        Ok(count)
    }
}

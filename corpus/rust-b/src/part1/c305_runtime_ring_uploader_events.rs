//! case: the same pinned ring uploader, but each slot carries the event recorded after its upload and waits on it before refilling
//! expect: none
use std::collections::VecDeque;

use cuda_lint_runtime::{Context, DeviceBuffer, Event, PinnedBuffer, Result, Stream};

struct Slot {
    host: PinnedBuffer<u8>,
    done: Event,
}

pub struct Uploader {
    stream: Stream,
    ring: VecDeque<Slot>,
    frames: Vec<DeviceBuffer<u8>>,
}

impl Uploader {
    pub fn new(ctx: &Context, slots: usize, frame_bytes: usize) -> Result<Self> {
        let stream = ctx.new_stream()?;
        let ring = (0..slots)
            .map(|_| Ok(Slot { host: ctx.alloc_pinned::<u8>(frame_bytes)?, done: ctx.new_event()? }))
            .collect::<Result<VecDeque<_>>>()?;
        let frames = (0..slots).map(|_| ctx.alloc::<u8>(frame_bytes)).collect::<Result<Vec<_>>>()?;
        Ok(Self { stream, ring, frames })
    }

    pub fn pump<I: Iterator<Item = Vec<u8>>>(&mut self, decoded: I) -> Result<usize> {
        let mut count = 0;
        for (i, frame) in decoded.enumerate() {
            let Some(mut slot) = self.ring.pop_front() else { break };
            // Wait for this slot's previous upload (an unrecorded event is complete at once).
            slot.done.synchronize()?;
            slot.host.copy_from_slice(&frame);
            let k = i % self.frames.len();
            let dst = &mut self.frames[k];
            // SAFETY: the host side is not touched again before `done` completes.
            unsafe { self.stream.copy_htod_async(dst, &slot.host)? };
            self.stream.record_event(&slot.done)?;
            self.ring.push_back(slot);
            count += 1;
        }
        Ok(count)
    }
}

impl Drop for Uploader {
    fn drop(&mut self) {
        let _ = self.stream.synchronize();
    }
}

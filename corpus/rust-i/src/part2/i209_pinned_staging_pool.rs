//! case: upload pipeline for a feature-ingest service (runtime crate) with a pool of pinned staging slots; a slot is refilled only after the event recorded behind its last copy was synchronized, and Drop synchronizes the stream before the pinned memory is freed (near-miss)
//! expect: none

use cuda_lint_runtime::{Context, DeviceBuffer, Event, PinnedBuffer, Result, Stream};
use std::collections::VecDeque;

struct Slot {
    buf: PinnedBuffer<f32>,
    done: Event,
}

pub struct StagingUploader {
    stream: Stream,
    free: Vec<Slot>,
    in_flight: VecDeque<Slot>,
    slot_len: usize,
    uploaded_bytes: u64,
}

impl StagingUploader {
    pub fn new(ctx: &Context, slots: usize, slot_len: usize) -> Result<Self> {
        let free = (0..slots)
            .map(|_| Ok(Slot { buf: ctx.alloc_pinned::<f32>(slot_len)?, done: ctx.new_event()? }))
            .collect::<Result<Vec<_>>>()?;
        Ok(StagingUploader { stream: ctx.new_stream()?, free, in_flight: VecDeque::new(), slot_len, uploaded_bytes: 0 })
    }

    /// A slot whose previous copy, if any, has finished.
    fn acquire(&mut self) -> Result<Slot> {
        if let Some(slot) = self.free.pop() {
            return Ok(slot);
        }
        let oldest = self.in_flight.pop_front().expect("slots exist");
        oldest.done.synchronize()?;
        Ok(oldest)
    }

    /// Enqueues `rows` into `dst` (which must hold exactly `rows.len()` values).
    pub fn upload(&mut self, rows: &[f32], dst: &mut DeviceBuffer<f32>) -> Result<()> {
        for (chunk_idx, chunk) in rows.chunks(self.slot_len).enumerate() {
            let mut slot = self.acquire()?;
            slot.buf[..chunk.len()].copy_from_slice(chunk);
            let mut part = unsafe {
                DeviceBuffer::<f32>::from_raw_parts(dst.context(), dst.device_ptr().offset_bytes(chunk_idx * self.slot_len * 4), chunk.len())
            };
            let res = unsafe { self.stream.copy_htod_async(&mut part, &slot.buf[..chunk.len()]) };
            let _ = part.into_raw(); // a view into `dst`: not ours to free
            res?;
            self.stream.record_event(&slot.done)?;
            self.in_flight.push_back(slot);
            self.uploaded_bytes += (chunk.len() * 4) as u64;
        }
        Ok(())
    }

    /// Waits for every pending upload; `dst` buffers may be used by other streams afterwards.
    pub fn flush(&mut self) -> Result<()> {
        self.stream.synchronize()?;
        self.free.extend(self.in_flight.drain(..));
        Ok(())
    }

    pub fn uploaded_bytes(&self) -> u64 {
        self.uploaded_bytes
    }
}

impl Drop for StagingUploader {
    fn drop(&mut self) {
        // The slots' pinned memory is freed after this, when the fields drop.
        let _ = self.stream.synchronize();
    }
}

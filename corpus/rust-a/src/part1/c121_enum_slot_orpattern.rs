//! case: staging slots in an enum; submit() starts an async upload from the slot's pinned buffer, recycle() zeroes the buffer through an or-pattern match arm before the upload is known to be done
//! expect: missing_sync=1
use cuda_lint_runtime::{DeviceBuffer, PinnedBuffer, Result, Stream};

pub enum Slot {
    Front(PinnedBuffer<f32>),
    Back(PinnedBuffer<f32>),
    Empty,
}

pub struct Feeder {
    pub stream: Stream,
    pub dev: DeviceBuffer<f32>,
}

impl Feeder {
    pub fn submit(&mut self, slot: &Slot) -> Result<bool> {
        match slot {
            Slot::Front(buf) | Slot::Back(buf) => {
                // SAFETY: the slot's buffer outlives the copy (see recycle).
                unsafe { self.stream.copy_htod_async(&mut self.dev, buf)? };
                Ok(true)
            }
            Slot::Empty => Ok(false),
        }
    }

    pub fn recycle(&mut self, slot: &mut Slot) {
        match slot {
            Slot::Front(buf) | Slot::Back(buf) => buf.fill(0.0), // EXPECT: missing_sync
            Slot::Empty => {}
        }
    }

    pub fn feed(&mut self, mut slot: Slot) -> Result<Slot> {
        if self.submit(&slot)? {
            self.recycle(&mut slot);
        }
        self.stream.synchronize()?;
        Ok(slot)
    }
}

use cuda_lint_runtime::{Context, DeviceBuffer, Event, PinnedBuffer, Result, Stream};

pub struct Slot {
    pub host: PinnedBuffer<f32>,
    pub dev: DeviceBuffer<f32>,
    /// Recorded on the copy stream after the upload from `host`.
    pub copied: Event,
    /// Recorded on the compute stream after the last kernel that read `dev`.
    pub consumed: Event,
}

pub struct Ring {
    copy: Stream,
    slots: Vec<Slot>,
}

impl Ring {
    pub fn new(ctx: &Context, n: usize, len: usize) -> Result<Self> {
        let slots = (0..n)
            .map(|_| {
                Ok(Slot {
                    host: ctx.alloc_pinned(len)?,
                    dev: ctx.alloc(len)?,
                    copied: ctx.new_event()?,
                    consumed: ctx.new_event()?,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Ring { copy: ctx.new_stream()?, slots })
    }

    /// The slot for batch `i`, once its previous upload has finished reading the host buffer.
    pub fn acquire(&mut self, i: usize) -> Result<&mut Slot> {
        let n = self.slots.len();
        let slot = &mut self.slots[i % n];
        slot.copied.synchronize()?;
        Ok(slot)
    }

    pub fn slot(&self, i: usize) -> &Slot {
        &self.slots[i % self.slots.len()]
    }

    /// Uploads the slot of batch `i` on the copy stream, after the kernels that read its
    /// device buffer last time.
    pub fn upload(&mut self, i: usize) -> Result<()> {
        let n = self.slots.len();
        let slot = &mut self.slots[i % n];
        self.copy.wait_event(&slot.consumed)?;
        // SAFETY: `host` is not written again before `copied` has completed (see `acquire`).
        unsafe { self.copy.copy_htod_async(&mut slot.dev, &slot.host)? };
        self.copy.record_event(&slot.copied)
    }
}

impl Drop for Ring {
    fn drop(&mut self) {
        // kernels on other streams may still read the device buffers: wait for the whole context
        let _ = self.copy.context().synchronize();
    }
}

//! case: double-buffered data loader for a training job; two non-write-combined pinned slots are filled by a host callback only after the event recorded behind that slot's previous upload has been synchronized (`Option<CudaEvent>` taken per slot), and the compute stream waits on the upload event before using the batch
//! expect: none

use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaEvent, CudaSlice, CudaStream, DriverError, PinnedHostSlice};

struct Slot {
    host: PinnedHostSlice<f32>,
    device: CudaSlice<f32>,
    uploaded: Option<CudaEvent>,
}

pub struct PrefetchLoader {
    copy_stream: Arc<CudaStream>,
    compute_stream: Arc<CudaStream>,
    slots: [Slot; 2],
    next: usize,
    batch_elems: usize,
}

impl PrefetchLoader {
    pub fn new(ctx: &Arc<CudaContext>, compute_stream: Arc<CudaStream>, batch_elems: usize) -> Result<Self, DriverError> {
        let copy_stream = ctx.new_stream()?;
        let make_slot = || -> Result<Slot, DriverError> {
            Ok(Slot {
                host: unsafe { ctx.alloc_pinned_with_flags::<f32>(batch_elems, 0)? },
                device: copy_stream.alloc_zeros::<f32>(batch_elems)?,
                uploaded: None,
            })
        };
        let slots = [make_slot()?, make_slot()?];
        Ok(Self { copy_stream, compute_stream, slots, next: 0, batch_elems })
    }

    /// Fills the next slot with `fill` and starts its upload; returns the slot index.
    pub fn prefetch<F>(&mut self, fill: F) -> Result<usize, DriverError>
    where
        F: FnOnce(&mut [f32]),
    {
        let idx = self.next;
        self.next ^= 1;
        let slot = &mut self.slots[idx];
        if let Some(previous) = slot.uploaded.take() {
            previous.synchronize()?;
        }
        fill(slot.host.as_mut_slice()?);
        self.copy_stream.memcpy_htod(&slot.host, &mut slot.device)?;
        let done = self.copy_stream.record_event(None)?;
        slot.uploaded.replace(done);
        Ok(idx)
    }

    /// Makes the compute stream wait for the slot's upload and hands out its device batch.
    pub fn batch(&self, idx: usize) -> Result<&CudaSlice<f32>, DriverError> {
        let slot = &self.slots[idx];
        if let Some(ev) = slot.uploaded.as_ref() {
            self.compute_stream.wait(ev)?;
        }
        Ok(&slot.device)
    }

    pub fn batch_elems(&self) -> usize {
        self.batch_elems
    }
}

//! case: a host-staged gradient all-reduce (runtime layer): scoped threads each enqueue their device's gradients into one slice of a portable pinned buffer and return; joining the threads does not wait for the copies, and the host averages the slices before any stream is synchronized
//! expect: missing_sync=1

mod gather;

use cuda_lint_runtime::{Context, DeviceBuffer, PinnedBuffer, PinnedFlags, Result, Stream};

pub struct DeviceSlot {
    pub ctx: Context,
    pub stream: Stream,
    pub grads: DeviceBuffer<f32>,
}

pub struct HostAllReduce {
    slots: Vec<DeviceSlot>,
    staging: PinnedBuffer<f32>,
    mean: PinnedBuffer<f32>,
    len: usize,
}

impl HostAllReduce {
    pub fn new(ordinals: &[usize], len: usize) -> Result<Self> {
        let slots = ordinals
            .iter()
            .map(|&o| -> Result<DeviceSlot> {
                let ctx = Context::new(o)?;
                Ok(DeviceSlot { stream: ctx.new_stream()?, grads: ctx.alloc_zeroed::<f32>(len)?, ctx })
            })
            .collect::<Result<Vec<_>>>()?;
        // Portable: every device's context copies into it.
        let flags = PinnedFlags { portable: true, ..PinnedFlags::default() };
        let staging = slots[0].ctx.alloc_pinned_with_flags::<f32>(len * slots.len(), flags)?;
        let mean = slots[0].ctx.alloc_pinned_with_flags::<f32>(len, flags)?;
        Ok(Self { slots, staging, mean, len })
    }

    pub fn reduce_mean(&mut self) -> Result<()> {
        gather::gather(&self.slots, &mut self.staging, self.len)?;

        let n_dev = self.slots.len() as f32;
        let len = self.len;
        let staging = &self.staging;
        self.mean.iter_mut().enumerate().for_each(|(i, m)| *m = staging.chunks_exact(len).map(|dev| dev[i]).sum::<f32>() / n_dev); // EXPECT: missing_sync

        for slot in &mut self.slots {
            slot.ctx.bind_to_thread()?;
            slot.stream.copy_htod(&mut slot.grads, &self.mean)?;
        }
        Ok(())
    }
}

//! Fan-out of the device-to-host copies, one thread per device.

use std::thread;

use cuda_lint_runtime::Result;

use super::DeviceSlot;

/// Enqueues each device's gradients into its slice of `staging`. Returns once every copy has
/// been *enqueued*; the copies run on each device's own stream.
pub fn gather(slots: &[DeviceSlot], staging: &mut [f32], len: usize) -> Result<()> {
    thread::scope(|s| {
        let handles: Vec<_> = staging
            .chunks_mut(len)
            .zip(slots)
            .map(|(dst, slot)| {
                s.spawn(move || -> Result<()> {
                    slot.ctx.bind_to_thread()?;
                    unsafe { slot.stream.copy_dtoh_async(dst, &slot.grads) }
                })
            })
            .collect();
        handles.into_iter().try_for_each(|h| h.join().expect("gather thread panicked"))
    })
}

//! case: a readback helper uses a `Pending` guard whose `Drop` synchronizes the stream: the copy into a plain slice of pinned memory is enqueued inside a block that owns the guard, and the host reads after the block ends (the guard has dropped)
//! expect: none
use std::sync::{Arc, LazyLock, Mutex};

use cudarc::driver::{CudaContext, CudaSlice, CudaStream, DriverError, PinnedHostSlice};

/// Synchronizes its stream when dropped, so no early return can leave a copy in flight.
struct Pending<'a> {
    stream: &'a CudaStream,
}

impl Drop for Pending<'_> {
    fn drop(&mut self) {
        if let Err(e) = self.stream.synchronize() {
            eprintln!("readback: stream synchronize failed: {e}");
        }
    }
}

struct Staging {
    stream: Arc<CudaStream>,
    pinned: PinnedHostSlice<f32>,
}

static STAGING: LazyLock<Mutex<Option<Staging>>> = LazyLock::new(|| Mutex::new(None));

fn staging_for(ctx: &Arc<CudaContext>, len: usize) -> Result<std::sync::MutexGuard<'static, Option<Staging>>, DriverError> {
    let mut guard = STAGING.lock().expect("staging lock");
    let too_small = guard.as_ref().map_or(true, |s| s.pinned.len() < len);
    if too_small {
        let pinned = unsafe { ctx.alloc_pinned_with_flags::<f32>(len, 0)? };
        let old = guard.replace(Staging { stream: ctx.new_stream()?, pinned });
        drop(old);
    }
    Ok(guard)
}

/// Mean and max of a device tensor, read through the shared pinned staging buffer.
pub fn stats(ctx: &Arc<CudaContext>, dev: &CudaSlice<f32>) -> Result<(f32, f32), DriverError> {
    let mut guard = staging_for(ctx, dev.len())?;
    let staging = guard.as_mut().expect("staging allocated above");
    let len = dev.len();
    let host: &mut [f32] = &mut staging.pinned.as_mut_slice()?[..len];
    {
        let _pending = Pending { stream: &staging.stream };
        staging.stream.memcpy_dtoh(dev, host)?;
    } // `_pending` synchronizes here, also on the `?` path
    let sum: f32 = host.iter().sum();
    let max = host.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    Ok((sum / len.max(1) as f32, max))
}

//! case: a checkpointing helper malloc_sync's a state buffer and snapshots it with memcpy_dtod_sync into a second buffer before any upload into the state.
//! expect: uninitialized_device_read=1
use cudarc::driver::result::{self, DriverError};
use cudarc::driver::CudaContext;
use std::mem::size_of;

const CELLS: usize = 256 * 256;
const STATE_BYTES: usize = CELLS * size_of::<f32>();

pub fn snapshot_initial_state() -> Result<Vec<f32>, DriverError> {
    let _ctx = CudaContext::new(0)?;
    let mut host = vec![0.0f32; CELLS];
    unsafe {
        let d_state = result::malloc_sync(STATE_BYTES)?;
        let d_snapshot = match result::malloc_sync(STATE_BYTES) {
            Ok(p) => p,
            Err(e) => {
                result::free_sync(d_state)?;
                return Err(e);
            }
        };
        let r1 = result::memcpy_dtod_sync(d_snapshot, d_state, STATE_BYTES); // EXPECT: uninitialized_device_read
        let r2 = result::memcpy_dtoh_sync(&mut host, d_snapshot);
        let _ = result::free_sync(d_snapshot);
        let _ = result::free_sync(d_state);
        r1?;
        r2?;
    }
    Ok(host)
}

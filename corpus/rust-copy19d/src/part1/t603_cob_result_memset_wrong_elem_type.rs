//! case: a simulation step allocates a force buffer sized for f32 with result::malloc_sync and clears it with memset_d8_sync sized for f64.
//! expect: copy_out_of_bounds=1
use cudarc::driver::result::{self, DriverError};
use cudarc::driver::CudaContext;
use std::mem::size_of;

const PARTICLES: usize = 65_536;
const FORCE_BYTES: usize = 3 * PARTICLES * size_of::<f32>();

pub fn reset_forces() -> Result<Vec<f32>, DriverError> {
    let _ctx = CudaContext::new(0)?;
    let mut host = vec![0.0f32; 3 * PARTICLES];
    unsafe {
        let d_forces = result::malloc_sync(FORCE_BYTES)?;
        let cleared = result::memset_d8_sync(d_forces, 0, 3 * PARTICLES * size_of::<f64>()); // EXPECT: copy_out_of_bounds
        let copied = result::memcpy_dtoh_sync(&mut host, d_forces);
        let freed = result::free_sync(d_forces);
        cleared?;
        copied?;
        freed?;
    }
    Ok(host)
}

use std::ffi::c_void;
use std::ptr::null_mut;

use cudarc::driver::sys;
use cudarc::driver::DriverError;

/// Page-locked host memory usable from every context.
pub fn host_alloc(bytes: usize) -> Result<*mut u8, DriverError> {
    let mut p: *mut c_void = null_mut();
    unsafe { sys::cuMemHostAlloc(&mut p, bytes, sys::CU_MEMHOSTALLOC_PORTABLE).result()? };
    Ok(p.cast())
}

//! case: near miss: a public upload routine copies a fixed 4 KiB block into a device pointer it receives; no code in the crate calls it, so the destination's size is unknown
//! expect: none

use cudarc::driver::sys;
use std::ffi::c_void;

pub const BLOCK_BYTES: usize = 4096;

pub struct Staging {
    pub block: [u8; BLOCK_BYTES],
}

/// Uploads one staging block to `dst`, which must hold at least `BLOCK_BYTES`.
pub unsafe fn upload_block(dst: sys::CUdeviceptr, staging: &Staging) -> Result<(), cudarc::driver::DriverError> {
    unsafe { sys::cuMemcpyHtoD_v2(dst, staging.block.as_ptr() as *const c_void, BLOCK_BYTES).result() }
}

/// Clears `count` blocks starting at `dst`.
pub unsafe fn clear_blocks(dst: sys::CUdeviceptr, count: usize) -> Result<(), cudarc::driver::DriverError> {
    unsafe { sys::cuMemsetD32_v2(dst, 0, count * BLOCK_BYTES / 4).result() }
}

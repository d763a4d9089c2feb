//! case: a public upload helper copies a fixed-size coefficient block into a device pointer it receives as a parameter; no code in the crate calls it, so the destination's size is unknown and the source is exactly the count
//! expect: none
use cudarc::driver::sys::{self, CUdeviceptr, CUresult};
use std::ffi::c_void;

pub const TAPS: usize = 64;

/// Uploads filter taps into `dst`, which the caller allocated with at least TAPS floats.
pub unsafe fn upload_taps(dst: CUdeviceptr, taps: &[f32; TAPS]) -> Result<(), CUresult> {
    let rc = unsafe { sys::cuMemcpyHtoD_v2(dst, taps.as_ptr() as *const c_void, TAPS * 4) };
    if rc != CUresult::CUDA_SUCCESS {
        return Err(rc);
    }
    Ok(())
}

/// Downloads a fixed 4 KiB block from a caller's device pointer.
pub unsafe fn download_block(src: CUdeviceptr, out: &mut [u8; 4096]) -> CUresult {
    unsafe { sys::cuMemcpyDtoH_v2(out.as_mut_ptr() as *mut c_void, src, 4096) }
}

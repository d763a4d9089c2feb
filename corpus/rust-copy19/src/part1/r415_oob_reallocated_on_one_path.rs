//! case: a staging pointer is allocated SMALL_BYTES or LARGE_BYTES depending on a quality flag and the copy uses the byte count chosen with the same flag; judged by the largest allocation, LARGE_BYTES fits
//! expect: none
use cudarc::runtime::sys::{self, cudaError_t, cudaMemcpyKind};
use std::ffi::c_void;
use std::ptr;

const SMALL_TEXELS: usize = 64 * 64;
const LARGE_TEXELS: usize = 128 * 128;
const SMALL_BYTES: usize = SMALL_TEXELS * 4;
const LARGE_BYTES: usize = LARGE_TEXELS * 4;

pub fn upload_texture(high_quality: bool) -> Result<u32, String> {
    let texels = vec![0xff00ff00u32; LARGE_TEXELS];
    let mut d_tex: *mut c_void = ptr::null_mut();
    let bytes = if high_quality { LARGE_BYTES } else { SMALL_BYTES };
    let mut probe = 0u32;
    let mut e = [cudaError_t::cudaSuccess; 4];
    unsafe {
        e[0] = if high_quality {
            sys::cudaMalloc(&mut d_tex, LARGE_BYTES)
        } else {
            sys::cudaMalloc(&mut d_tex, SMALL_BYTES)
        };
        e[1] = sys::cudaMemcpy(d_tex, texels.as_ptr() as *const c_void, bytes, cudaMemcpyKind::cudaMemcpyHostToDevice);
        e[2] = sys::cudaMemcpy(&mut probe as *mut u32 as *mut c_void, d_tex, 4, cudaMemcpyKind::cudaMemcpyDeviceToHost);
        e[3] = sys::cudaFree(d_tex);
    }
    if e.iter().any(|x| *x != cudaError_t::cudaSuccess) {
        return Err("texture upload failed".into());
    }
    Ok(probe)
}

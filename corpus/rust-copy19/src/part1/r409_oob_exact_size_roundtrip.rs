//! case: a lookup table is copied in and back with cudaMemcpy whose byte count equals both the cudaMalloc size and the host arrays' size: in bounds
//! expect: none
use cudarc::runtime::sys::{self, cudaError_t, cudaMemcpyKind};
use std::ffi::c_void;
use std::ptr;

const LUT_LEN: usize = 1024;
const LUT_BYTES: usize = LUT_LEN * std::mem::size_of::<u16>();

pub fn verify_lut() -> Result<bool, String> {
    let mut lut = [0u16; LUT_LEN];
    for (i, v) in lut.iter_mut().enumerate() {
        *v = (i as u16).wrapping_mul(31);
    }
    let mut back = [0u16; LUT_LEN];
    let mut d_lut: *mut c_void = ptr::null_mut();
    let mut errs = [cudaError_t::cudaSuccess; 4];
    unsafe {
        errs[0] = sys::cudaMalloc(&mut d_lut, LUT_BYTES);
        errs[1] = sys::cudaMemcpy(d_lut, lut.as_ptr() as *const c_void, LUT_BYTES, cudaMemcpyKind::cudaMemcpyHostToDevice);
        errs[2] = sys::cudaMemcpy(back.as_mut_ptr() as *mut c_void, d_lut, LUT_BYTES, cudaMemcpyKind::cudaMemcpyDeviceToHost);
        errs[3] = sys::cudaFree(d_lut);
    }
    if errs.iter().any(|e| *e != cudaError_t::cudaSuccess) {
        return Err(format!("{errs:?}"));
    }
    Ok(lut == back)
}

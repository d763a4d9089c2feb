//! case: a mask buffer is cudaMalloc'd only when `use_mask` is set, and its upload and free are guarded by the same flag: no path copies into the null pointer
//! expect: none
use cudarc::runtime::sys::{self, cudaError_t, cudaMemcpyKind};
use std::ffi::c_void;
use std::ptr;

const PIXELS: usize = 256 * 256;
const IMG_BYTES: usize = PIXELS * 4;
const MASK_BYTES: usize = PIXELS;

pub fn stage(image: &[f32], mask: &[u8], use_mask: bool) -> Result<(f32, u8), String> {
    assert!(image.len() >= PIXELS && mask.len() >= PIXELS);
    let mut d_img: *mut c_void = ptr::null_mut();
    let mut d_mask: *mut c_void = ptr::null_mut();
    let mut first_px = 0.0f32;
    let mut first_mask = 0u8;
    let mut errs = Vec::new();
    unsafe {
        errs.push(sys::cudaMalloc(&mut d_img, IMG_BYTES));
        if use_mask {
            errs.push(sys::cudaMalloc(&mut d_mask, MASK_BYTES));
        }
        errs.push(sys::cudaMemcpy(d_img, image.as_ptr() as *const c_void, IMG_BYTES, cudaMemcpyKind::cudaMemcpyHostToDevice));
        if use_mask {
            errs.push(sys::cudaMemcpy(d_mask, mask.as_ptr() as *const c_void, MASK_BYTES, cudaMemcpyKind::cudaMemcpyHostToDevice));
            errs.push(sys::cudaMemcpy(&mut first_mask as *mut u8 as *mut c_void, d_mask, 1, cudaMemcpyKind::cudaMemcpyDeviceToHost));
        }
        errs.push(sys::cudaMemcpy(&mut first_px as *mut f32 as *mut c_void, d_img, 4, cudaMemcpyKind::cudaMemcpyDeviceToHost));
        errs.push(sys::cudaFree(d_img));
        if use_mask {
            errs.push(sys::cudaFree(d_mask));
        }
    }
    if errs.iter().any(|e| *e != cudaError_t::cudaSuccess) {
        return Err(format!("{errs:?}"));
    }
    Ok((first_px, first_mask))
}

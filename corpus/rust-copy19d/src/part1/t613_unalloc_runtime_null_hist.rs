//! case: an image statistics pass clears and reads back a histogram pointer that stays std::ptr::null_mut() (its cudaMalloc was made into another variable).
//! expect: unallocated_pointer=2
use cudarc::runtime::sys::{cudaError, cudaFree, cudaMalloc, cudaMemcpy, cudaMemcpyKind, cudaMemset};
use std::ffi::c_void;
use std::mem::size_of;

const BINS: usize = 256;
const PIXELS: usize = 512 * 512;

pub fn luminance_histogram(pixels: &[u8; PIXELS]) -> Result<Vec<u32>, cudaError> {
    let mut hist = vec![0u32; BINS];
    let mut d_pixels: *mut c_void = std::ptr::null_mut();
    let d_hist: *mut c_void = std::ptr::null_mut();
    unsafe {
        let st = cudaMalloc(&mut d_pixels, PIXELS);
        if st != cudaError::cudaSuccess {
            return Err(st);
        }
        cudaMemcpy(d_pixels, pixels.as_ptr() as *const c_void, PIXELS, cudaMemcpyKind::cudaMemcpyHostToDevice);
        cudaMemset(d_hist, 0, BINS * size_of::<u32>()); // EXPECT: unallocated_pointer
        let st = cudaMemcpy(hist.as_mut_ptr() as *mut c_void, d_hist, BINS * size_of::<u32>(), cudaMemcpyKind::cudaMemcpyDeviceToHost); // EXPECT: unallocated_pointer
        cudaFree(d_pixels);
        cudaFree(d_hist);
        if st != cudaError::cudaSuccess {
            return Err(st);
        }
    }
    Ok(hist)
}

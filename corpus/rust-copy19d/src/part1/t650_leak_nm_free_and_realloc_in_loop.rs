//! case: a variable-size batch loop frees its device buffer before cudaMalloc'ing a larger one when a batch outgrows it, and frees the last one after the loop.
//! expect: none
use cudarc::runtime::sys::{cudaError, cudaFree, cudaMalloc, cudaMemcpy, cudaMemcpyKind};
use std::ffi::c_void;
use std::mem::size_of;

pub fn stream_batches(batches: &[Vec<f32>]) -> Result<f64, cudaError> {
    let mut d_buf: *mut c_void = std::ptr::null_mut();
    let mut cap = 0usize;
    let mut checksum = 0.0f64;
    unsafe {
        for batch in batches {
            let bytes = batch.len() * size_of::<f32>();
            if bytes > cap {
                cudaFree(d_buf);
                d_buf = std::ptr::null_mut();
                let st = cudaMalloc(&mut d_buf, bytes);
                if st != cudaError::cudaSuccess {
                    return Err(st);
                }
                cap = bytes;
            }
            let mut first = [0.0f32; 1];
            cudaMemcpy(d_buf, batch.as_ptr() as *const c_void, bytes, cudaMemcpyKind::cudaMemcpyHostToDevice);
            if !batch.is_empty() {
                cudaMemcpy(first.as_mut_ptr() as *mut c_void, d_buf, size_of::<f32>(), cudaMemcpyKind::cudaMemcpyDeviceToHost);
            }
            checksum += first[0] as f64;
        }
        cudaFree(d_buf);
    }
    Ok(checksum)
}

//! case: an optional per-channel scale buffer is allocated only when a flag from argv is set, and its upload is guarded by the same flag; it is freed unconditionally (cudaFree of null does nothing).
//! expect: none
use cudarc::runtime::sys::{cudaError, cudaFree, cudaMalloc, cudaMemcpy, cudaMemcpyKind};
use std::ffi::c_void;
use std::mem::size_of;

const CHANNELS: usize = 64;

pub fn configure_scales() -> Result<Vec<f32>, cudaError> {
    let use_scales = std::env::args().any(|a| a == "--per-channel-scale");
    let scales = vec![1.0f32; CHANNELS];
    let mut echo = vec![0.0f32; CHANNELS];
    let mut d_scales: *mut c_void = std::ptr::null_mut();
    unsafe {
        if use_scales {
            let st = cudaMalloc(&mut d_scales, CHANNELS * size_of::<f32>());
            if st != cudaError::cudaSuccess {
                return Err(st);
            }
        }
        if use_scales {
            cudaMemcpy(d_scales, scales.as_ptr() as *const c_void, CHANNELS * size_of::<f32>(), cudaMemcpyKind::cudaMemcpyHostToDevice);
            cudaMemcpy(echo.as_mut_ptr() as *mut c_void, d_scales, CHANNELS * size_of::<f32>(), cudaMemcpyKind::cudaMemcpyDeviceToHost);
        }
        cudaFree(d_scales);
    }
    Ok(echo)
}

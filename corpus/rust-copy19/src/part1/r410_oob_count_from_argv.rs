//! case: the number of samples to upload is read from the command line and the device buffer is MAX_SAMPLES long; the copy's byte count is a run-time value, so nothing is known to overrun
//! expect: none
use cudarc::driver::sys::{self, CUdeviceptr, CUresult};
use cudarc::driver::CudaContext;
use std::ffi::c_void;

const MAX_SAMPLES: usize = 1 << 14;

pub fn upload_requested() -> Result<usize, Box<dyn std::error::Error>> {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(1000);
    let _ctx = CudaContext::new(0)?;
    let samples: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let mut echoed = vec![0.0f32; n];

    let mut d_samples: CUdeviceptr = 0;
    let mut bad = 0;
    unsafe {
        bad += (sys::cuMemAlloc_v2(&mut d_samples, MAX_SAMPLES * 4) != CUresult::CUDA_SUCCESS) as u32;
        bad += (sys::cuMemcpyHtoD_v2(d_samples, samples.as_ptr() as *const c_void, n * 4) != CUresult::CUDA_SUCCESS) as u32;
        bad += (sys::cuMemcpyDtoH_v2(echoed.as_mut_ptr() as *mut c_void, d_samples, n * 4) != CUresult::CUDA_SUCCESS) as u32;
        bad += (sys::cuMemFree_v2(d_samples) != CUresult::CUDA_SUCCESS) as u32;
    }
    if bad > 0 {
        return Err("upload failed".into());
    }
    Ok(echoed.len())
}

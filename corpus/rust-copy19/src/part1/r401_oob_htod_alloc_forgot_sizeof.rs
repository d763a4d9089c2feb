//! case: an upload-bandwidth probe allocates N_WEIGHTS bytes with cuMemAlloc (the size_of::<f32>() factor forgotten) and then uploads N_WEIGHTS f32 values: the copy writes four times what the allocation holds
//! expect: copy_out_of_bounds=1
use cudarc::driver::sys::{self, CUdeviceptr, CUresult};
use cudarc::driver::CudaContext;
use std::ffi::c_void;
use std::time::Instant;

const N_WEIGHTS: usize = 4096;

/// Measures how long one synchronous upload of the weight table takes.
pub fn probe_upload() -> Result<f64, Box<dyn std::error::Error>> {
    let _ctx = CudaContext::new(0)?;
    let mut weights = vec![0.0f32; N_WEIGHTS];
    for (i, w) in weights.iter_mut().enumerate() {
        *w = (i as f32 * 0.01).sin();
    }

    let mut d_weights: CUdeviceptr = 0;
    let mut ok = true;
    let t0 = Instant::now();
    unsafe {
        ok &= sys::cuMemAlloc_v2(&mut d_weights, N_WEIGHTS) == CUresult::CUDA_SUCCESS;
        ok &= sys::cuMemcpyHtoD_v2( // EXPECT: copy_out_of_bounds
            d_weights,
            weights.as_ptr() as *const c_void,
            N_WEIGHTS * std::mem::size_of::<f32>(),
        ) == CUresult::CUDA_SUCCESS;
        ok &= sys::cuMemFree_v2(d_weights) == CUresult::CUDA_SUCCESS;
    }
    let secs = t0.elapsed().as_secs_f64();
    if !ok {
        return Err("driver call failed".into());
    }
    Ok(secs)
}

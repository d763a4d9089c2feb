//! case: a solver "warm-starts" by copying its previous state back from a buffer it has just cuMemAlloc'd and never written: cuMemcpyDtoH_v2 reads unspecified contents
//! expect: uninitialized_device_read=1
use cudarc::driver::sys::{self, CUdeviceptr, CUresult};
use cudarc::driver::CudaContext;
use std::ffi::c_void;

const STATE_LEN: usize = 300;
const STATE_BYTES: usize = STATE_LEN * std::mem::size_of::<f64>();

pub fn warm_start() -> Result<Vec<f64>, Box<dyn std::error::Error>> {
    let _ctx = CudaContext::new(0)?;
    let mut state = vec![0.0f64; STATE_LEN];
    let mut d_state: CUdeviceptr = 0;
    let mut bad = false;
    unsafe {
        bad |= sys::cuMemAlloc_v2(&mut d_state, STATE_BYTES) != CUresult::CUDA_SUCCESS;
        bad |= sys::cuMemcpyDtoH_v2(state.as_mut_ptr() as *mut c_void, d_state, STATE_BYTES) // EXPECT: uninitialized_device_read
            != CUresult::CUDA_SUCCESS;
        bad |= sys::cuMemFree_v2(d_state) != CUresult::CUDA_SUCCESS;
    }
    if bad {
        return Err("warm start failed".into());
    }
    Ok(state)
}

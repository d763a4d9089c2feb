//! case: the state buffer is uploaded only when a checkpoint exists, then always read back; one path writes it before the read, so it is not reported
//! expect: none
use cudarc::driver::sys::{self, CUdeviceptr, CUresult};
use cudarc::driver::CudaContext;
use std::ffi::c_void;

const STATE: usize = 512;
const STATE_BYTES: usize = STATE * 4;

pub fn restore(checkpoint: Option<&[f32; STATE]>) -> Result<Vec<f32>, Box<dyn std::error::Error>> {
    let _ctx = CudaContext::new(0)?;
    let mut restored = vec![0.0f32; STATE];
    let mut d_state: CUdeviceptr = 0;
    let mut rcs = Vec::new();
    unsafe {
        rcs.push(sys::cuMemAlloc_v2(&mut d_state, STATE_BYTES));
        if let Some(cp) = checkpoint {
            rcs.push(sys::cuMemcpyHtoD_v2(d_state, cp.as_ptr() as *const c_void, STATE_BYTES));
        }
        rcs.push(sys::cuMemcpyDtoH_v2(restored.as_mut_ptr() as *mut c_void, d_state, STATE_BYTES));
        rcs.push(sys::cuMemFree_v2(d_state));
    }
    if rcs.iter().any(|r| *r != CUresult::CUDA_SUCCESS) {
        return Err("restore failed".into());
    }
    Ok(restored)
}

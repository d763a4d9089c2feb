//! case: a layer's weights are allocated and uploaded, but the bias buffer's cuMemAlloc was lost in a refactor: d_bias is still the CUdeviceptr 0 it was initialized with when the bias upload runs
//! expect: unallocated_pointer=1
use cudarc::driver::sys::{self, CUdeviceptr, CUresult};
use cudarc::driver::CudaContext;
use std::ffi::c_void;

const IN: usize = 64;
const OUT: usize = 32;
const W_BYTES: usize = IN * OUT * 4;
const B_BYTES: usize = OUT * 4;

pub fn load_layer(weights: &[f32; IN * OUT], bias: &[f32; OUT]) -> Result<Vec<f32>, Box<dyn std::error::Error>> {
    let _ctx = CudaContext::new(0)?;
    let mut d_w: CUdeviceptr = 0;
    let d_bias: CUdeviceptr = 0;
    let mut check = vec![0.0f32; IN * OUT];
    let mut rcs = Vec::new();
    unsafe {
        rcs.push(sys::cuMemAlloc_v2(&mut d_w, W_BYTES));
        rcs.push(sys::cuMemcpyHtoD_v2(d_w, weights.as_ptr() as *const c_void, W_BYTES));
        rcs.push(sys::cuMemcpyHtoD_v2(d_bias, bias.as_ptr() as *const c_void, B_BYTES)); // EXPECT: unallocated_pointer
        rcs.push(sys::cuMemcpyDtoH_v2(check.as_mut_ptr() as *mut c_void, d_w, W_BYTES));
        rcs.push(sys::cuMemFree_v2(d_w));
        rcs.push(sys::cuMemFree_v2(d_bias));
    }
    if rcs.iter().any(|r| *r != CUresult::CUDA_SUCCESS) {
        return Err(format!("{rcs:?}").into());
    }
    Ok(check)
}

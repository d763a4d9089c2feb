//! case: a histogram buffer of HIST_BYTES bytes is cleared with cuMemsetD32_v2 given the byte count instead of the number of 32-bit words: the memset writes four times the allocation
//! expect: copy_out_of_bounds=1
use cudarc::driver::sys::{self, CUdeviceptr, CUresult};
use cudarc::driver::CudaContext;
use std::ffi::c_void;

const BINS: usize = 256;
const HIST_BYTES: usize = BINS * 4;

pub fn cleared_histogram() -> Result<Vec<u32>, Box<dyn std::error::Error>> {
    let _ctx = CudaContext::new(0)?;
    let mut hist = vec![0u32; BINS];
    let mut d_hist: CUdeviceptr = 0;
    let mut status = Vec::with_capacity(4);
    unsafe {
        status.push(sys::cuMemAlloc_v2(&mut d_hist, HIST_BYTES));
        status.push(sys::cuMemsetD32_v2(d_hist, 0, HIST_BYTES)); // EXPECT: copy_out_of_bounds
        status.push(sys::cuMemcpyDtoH_v2(hist.as_mut_ptr() as *mut c_void, d_hist, HIST_BYTES));
        status.push(sys::cuMemFree_v2(d_hist));
    }
    if status.iter().any(|s| *s != CUresult::CUDA_SUCCESS) {
        return Err(format!("{status:?}").into());
    }
    Ok(hist)
}

//! case: cuMemsetD32 takes a count of 32-bit words but is given the buffer's byte size, writing four times the allocation
//! expect: copy_out_of_bounds=1

use cudarc::driver::sys;
use cudarc::driver::CudaContext;
use std::ffi::c_void;
use std::mem::size_of;

const BINS: usize = 256;
const HIST_BYTES: usize = BINS * size_of::<u32>();

pub fn reset_histogram() -> Result<Vec<u32>, Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    ctx.bind_to_thread()?;
    let mut hist = vec![0u32; BINS];
    let mut d_hist: sys::CUdeviceptr = 0;
    unsafe {
        sys::cuMemAlloc_v2(&mut d_hist, HIST_BYTES).result().expect("allocation failed");
        sys::cuMemsetD32_v2(d_hist, 0, HIST_BYTES).result().expect("cuMemsetD32_v2"); // EXPECT: copy_out_of_bounds
        sys::cuMemcpyDtoH_v2(hist.as_mut_ptr() as *mut c_void, d_hist, HIST_BYTES).result().expect("cuMemcpyDtoH_v2");
        sys::cuMemFree_v2(d_hist).result().expect("cuMemFree_v2");
    }
    Ok(hist)
}

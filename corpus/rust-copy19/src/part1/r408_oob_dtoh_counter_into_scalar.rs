//! case: a device block of four u32 counters is read back with cuMemcpyDtoH_v2 into a single u32 local using the block's byte count: the copy writes 16 bytes into a 4-byte scalar
//! expect: copy_out_of_bounds=1
use cudarc::driver::sys::{self, CUdeviceptr, CUresult};
use cudarc::driver::CudaContext;
use std::ffi::c_void;

const COUNTERS: usize = 4;
const COUNTER_BYTES: usize = COUNTERS * 4;

pub fn first_counter() -> Result<u32, Box<dyn std::error::Error>> {
    let _ctx = CudaContext::new(0)?;
    let mut d_counters: CUdeviceptr = 0;
    let mut first: u32 = 0;
    let mut rc = [CUresult::CUDA_SUCCESS; 4];
    unsafe {
        rc[0] = sys::cuMemAlloc_v2(&mut d_counters, COUNTER_BYTES);
        rc[1] = sys::cuMemsetD32_v2(d_counters, 1, COUNTERS);
        rc[2] = sys::cuMemcpyDtoH_v2(&mut first as *mut u32 as *mut c_void, d_counters, COUNTER_BYTES); // EXPECT: copy_out_of_bounds
        rc[3] = sys::cuMemFree_v2(d_counters);
    }
    if rc.iter().any(|r| *r != CUresult::CUDA_SUCCESS) {
        return Err("counter readback failed".into());
    }
    Ok(first)
}

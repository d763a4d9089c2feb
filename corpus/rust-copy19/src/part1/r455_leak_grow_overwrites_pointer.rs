//! case: when the input is larger than the initial capacity the buffer is "grown" by a second cuMemAlloc_v2 into the same CUdeviceptr without freeing the first allocation, which is lost
//! expect: device_memory_leak=1
use cudarc::driver::sys::{self, CUdeviceptr, CUresult};
use cudarc::driver::CudaContext;
use std::ffi::c_void;

const INITIAL_CAP: usize = 1024;
const GROWN_CAP: usize = 4096;

pub fn upload_growing(values: &[f32; GROWN_CAP], used: usize) -> Result<f32, Box<dyn std::error::Error>> {
    let _ctx = CudaContext::new(0)?;
    let mut d_buf: CUdeviceptr = 0;
    let mut last = 0.0f32;
    let mut rcs = Vec::new();
    unsafe {
        rcs.push(sys::cuMemAlloc_v2(&mut d_buf, INITIAL_CAP * 4)); // EXPECT: device_memory_leak
        if used > INITIAL_CAP {
            rcs.push(sys::cuMemAlloc_v2(&mut d_buf, GROWN_CAP * 4));
        }
        rcs.push(sys::cuMemcpyHtoD_v2(d_buf, values.as_ptr() as *const c_void, INITIAL_CAP * 4));
        rcs.push(sys::cuMemcpyDtoH_v2(&mut last as *mut f32 as *mut c_void, d_buf + ((INITIAL_CAP - 1) * 4) as u64, 4));
        rcs.push(sys::cuMemFree_v2(d_buf));
    }
    if rcs.iter().any(|r| *r != CUresult::CUDA_SUCCESS) {
        return Err("grow failed".into());
    }
    Ok(last)
}

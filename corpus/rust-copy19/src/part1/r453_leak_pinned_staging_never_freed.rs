//! case: a pinned staging buffer from cuMemAllocHost_v2 is filled and uploaded with a synchronous cuMemcpyHtoD_v2; the device buffer is freed but the pinned one never is (no cuMemFreeHost)
//! expect: device_memory_leak=1
use cudarc::driver::sys::{self, CUdeviceptr, CUresult};
use cudarc::driver::CudaContext;
use std::ffi::c_void;

const N: usize = 4096;
const BYTES: usize = N * 4;

pub fn staged_upload(values: &[f32; N]) -> Result<f32, Box<dyn std::error::Error>> {
    let _ctx = CudaContext::new(0)?;
    let mut h_stage: *mut c_void = std::ptr::null_mut();
    let mut d_buf: CUdeviceptr = 0;
    let mut probe = 0.0f32;
    let mut rcs = Vec::new();
    unsafe {
        rcs.push(sys::cuMemAllocHost_v2(&mut h_stage, BYTES)); // EXPECT: device_memory_leak
        rcs.push(sys::cuMemAlloc_v2(&mut d_buf, BYTES));
        if rcs.iter().all(|r| *r == CUresult::CUDA_SUCCESS) {
            std::ptr::copy_nonoverlapping(values.as_ptr(), h_stage as *mut f32, N);
            rcs.push(sys::cuMemcpyHtoD_v2(d_buf, h_stage, BYTES));
            rcs.push(sys::cuMemcpyDtoH_v2(&mut probe as *mut f32 as *mut c_void, d_buf, 4));
        }
        rcs.push(sys::cuMemFree_v2(d_buf));
    }
    if rcs.iter().any(|r| *r != CUresult::CUDA_SUCCESS) {
        return Err("staged upload failed".into());
    }
    Ok(probe)
}

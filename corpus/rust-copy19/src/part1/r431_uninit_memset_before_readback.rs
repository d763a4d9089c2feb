//! case: a device flag array is cleared with cuMemsetD8_v2 right after cuMemAlloc_v2 and only then read back with cuMemcpyDtoH_v2: written before it is read
//! expect: none
use cudarc::driver::sys::{self, CUdeviceptr, CUresult};
use cudarc::driver::CudaContext;
use std::ffi::c_void;

const FLAGS: usize = 4096;

pub fn cleared_flags() -> Result<usize, Box<dyn std::error::Error>> {
    let _ctx = CudaContext::new(0)?;
    let mut flags = vec![1u8; FLAGS];
    let mut d_flags: CUdeviceptr = 0;
    let mut bad = 0;
    unsafe {
        bad += (sys::cuMemAlloc_v2(&mut d_flags, FLAGS) != CUresult::CUDA_SUCCESS) as i32;
        bad += (sys::cuMemsetD8_v2(d_flags, 0, FLAGS) != CUresult::CUDA_SUCCESS) as i32;
        bad += (sys::cuMemcpyDtoH_v2(flags.as_mut_ptr() as *mut c_void, d_flags, FLAGS) != CUresult::CUDA_SUCCESS) as i32;
        bad += (sys::cuMemFree_v2(d_flags) != CUresult::CUDA_SUCCESS) as i32;
    }
    if bad != 0 {
        return Err("flag reset failed".into());
    }
    Ok(flags.iter().filter(|f| **f != 0).count())
}

//! case: a reduction result buffer from cuMemAlloc is freed on every arm of a match over the copies' statuses, the error arms included.
//! expect: none
use cudarc::driver::sys::{self, CUdeviceptr, CUresult};
use cudarc::driver::{CudaContext, DriverError};
use std::ffi::c_void;
use std::mem::size_of;

const N: usize = 1024;

pub fn upload_then_peek(values: &[i32; N]) -> Result<i32, DriverError> {
    let _ctx = CudaContext::new(0)?;
    let mut d_vals: CUdeviceptr = 0;
    let mut first = 0i32;
    unsafe {
        sys::cuMemAlloc_v2(&mut d_vals, N * size_of::<i32>()).result()?;
        match sys::cuMemcpyHtoD_v2(d_vals, values.as_ptr() as *const c_void, N * size_of::<i32>()) {
            CUresult::CUDA_SUCCESS => {}
            err => {
                sys::cuMemFree_v2(d_vals);
                return Err(err.result().unwrap_err());
            }
        }
        match sys::cuMemcpyDtoH_v2(&mut first as *mut i32 as *mut c_void, d_vals, size_of::<i32>()) {
            CUresult::CUDA_SUCCESS => {
                sys::cuMemFree_v2(d_vals);
            }
            err => {
                sys::cuMemFree_v2(d_vals);
                return Err(err.result().unwrap_err());
            }
        }
    }
    Ok(first)
}

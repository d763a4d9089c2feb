//! case: two cuMemAlloc_v2 calls with early error returns that free whatever was already allocated, and the normal path frees both: nothing is lost
//! expect: none
use cudarc::driver::sys::{self, CUdeviceptr, CUresult};
use std::ffi::c_void;

const N: usize = 2048;

pub fn pair_upload(a: &[f32; N], b: &[f32; N]) -> Result<(f32, f32), CUresult> {
    let mut d_a: CUdeviceptr = 0;
    let mut d_b: CUdeviceptr = 0;
    let rc = unsafe { sys::cuMemAlloc_v2(&mut d_a, N * 4) };
    if rc != CUresult::CUDA_SUCCESS {
        return Err(rc);
    }
    let rc = unsafe { sys::cuMemAlloc_v2(&mut d_b, N * 4) };
    if rc != CUresult::CUDA_SUCCESS {
        unsafe { sys::cuMemFree_v2(d_a) };
        return Err(rc);
    }
    let rc = unsafe { sys::cuMemcpyHtoD_v2(d_a, a.as_ptr() as *const c_void, N * 4) };
    if rc != CUresult::CUDA_SUCCESS {
        unsafe {
            sys::cuMemFree_v2(d_b);
            sys::cuMemFree_v2(d_a);
        }
        return Err(rc);
    }
    let (mut a0, mut b0) = (0.0f32, 0.0f32);
    unsafe {
        sys::cuMemcpyHtoD_v2(d_b, b.as_ptr() as *const c_void, N * 4);
        sys::cuMemcpyDtoH_v2(&mut a0 as *mut f32 as *mut c_void, d_a, 4);
        sys::cuMemcpyDtoH_v2(&mut b0 as *mut f32 as *mut c_void, d_b, 4);
        sys::cuMemFree_v2(d_b);
        sys::cuMemFree_v2(d_a);
    }
    Ok((a0, b0))
}

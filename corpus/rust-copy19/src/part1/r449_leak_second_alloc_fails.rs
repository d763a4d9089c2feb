//! case: two cuMemAlloc_v2 calls: when the second fails the function returns its error without freeing the first, so d_keys is lost on that return
//! expect: device_memory_leak=1
use cudarc::driver::sys::{self, CUdeviceptr, CUresult};
use std::ffi::c_void;

const N: usize = 4096;

pub fn sort_pairs_staging(keys: &[u32; N], vals: &[u32; N]) -> Result<(u32, u32), CUresult> {
    let mut d_keys: CUdeviceptr = 0;
    let mut d_vals: CUdeviceptr = 0;
    let rc = unsafe { sys::cuMemAlloc_v2(&mut d_keys, N * 4) }; // EXPECT: device_memory_leak
    if rc != CUresult::CUDA_SUCCESS {
        return Err(rc);
    }
    let rc = unsafe { sys::cuMemAlloc_v2(&mut d_vals, N * 4) };
    if rc != CUresult::CUDA_SUCCESS {
        return Err(rc); // d_keys is not freed here
    }
    let (mut k0, mut v0) = (0u32, 0u32);
    unsafe {
        sys::cuMemcpyHtoD_v2(d_keys, keys.as_ptr() as *const c_void, N * 4);
        sys::cuMemcpyHtoD_v2(d_vals, vals.as_ptr() as *const c_void, N * 4);
        sys::cuMemcpyDtoH_v2(&mut k0 as *mut u32 as *mut c_void, d_keys, 4);
        sys::cuMemcpyDtoH_v2(&mut v0 as *mut u32 as *mut c_void, d_vals, 4);
        sys::cuMemFree_v2(d_vals);
        sys::cuMemFree_v2(d_keys);
    }
    Ok((k0, v0))
}

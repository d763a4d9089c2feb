//! case: a CUdeviceptr initialized to 0 has its address passed to an external pool allocator (declared extern "C", body not in the crate) before the upload: it may hold an allocation, so nothing is known to be null
//! expect: none
use cudarc::driver::sys::{self, CUdeviceptr, CUresult};
use std::ffi::c_void;

const N: usize = 4096;
const BYTES: usize = N * 4;

unsafe extern "C" {
    /// From the application's C++ memory pool (libdevpool).
    fn devpool_acquire(out: *mut CUdeviceptr, bytes: usize) -> i32;
    fn devpool_release(p: CUdeviceptr) -> i32;
}

pub fn upload_pooled(data: &[f32; N]) -> Result<u32, String> {
    let mut d_buf: CUdeviceptr = 0;
    let rc = unsafe { devpool_acquire(&mut d_buf, BYTES) };
    if rc != 0 {
        return Err(format!("pool exhausted: {rc}"));
    }
    let mut sample = 0u32;
    let up = unsafe { sys::cuMemcpyHtoD_v2(d_buf, data.as_ptr() as *const c_void, BYTES) };
    let down = unsafe { sys::cuMemcpyDtoH_v2(&mut sample as *mut u32 as *mut c_void, d_buf, 4) };
    unsafe { devpool_release(d_buf) };
    if up != CUresult::CUDA_SUCCESS || down != CUresult::CUDA_SUCCESS {
        return Err("copy failed".into());
    }
    Ok(sample)
}

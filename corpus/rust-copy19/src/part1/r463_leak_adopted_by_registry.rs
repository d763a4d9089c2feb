//! case: a cuMemAlloc_v2 buffer is handed to an external tensor registry (extern "C", body not in the crate) that takes ownership and frees it later: passed to an unknown function, not lost
//! expect: none
use cudarc::driver::sys::{self, CUdeviceptr, CUresult};
use std::ffi::c_void;

unsafe extern "C" {
    /// The registry owns `dptr` from now on and releases it with cuMemFree when the tensor dies.
    fn tensor_registry_adopt(name: *const u8, name_len: usize, dptr: CUdeviceptr, bytes: usize) -> i32;
}

const N: usize = 4096;

pub fn publish_embedding(name: &str, table: &[f32; N]) -> Result<(), CUresult> {
    let mut d_table: CUdeviceptr = 0;
    let rc = unsafe { sys::cuMemAlloc_v2(&mut d_table, N * 4) };
    if rc != CUresult::CUDA_SUCCESS {
        return Err(rc);
    }
    let up = unsafe { sys::cuMemcpyHtoD_v2(d_table, table.as_ptr() as *const c_void, N * 4) };
    unsafe {
        tensor_registry_adopt(name.as_ptr(), name.len(), d_table, N * 4);
    }
    if up != CUresult::CUDA_SUCCESS {
        return Err(up);
    }
    Ok(())
}

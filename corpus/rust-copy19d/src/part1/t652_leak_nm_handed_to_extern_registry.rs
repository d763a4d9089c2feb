//! case: a plugin cudaMalloc's a shared buffer, fills it, and hands it to the host application's registry (an extern "C" function with no body in the program), which owns it from then on.
//! expect: none
use cudarc::runtime::sys::{cudaError, cudaFree, cudaMalloc, cudaMemset};
use std::ffi::c_void;

unsafe extern "C" {
    fn host_register_buffer(name: *const std::ffi::c_char, ptr: *mut c_void, bytes: usize) -> i32;
}

const SCRATCH_BYTES: usize = 32 << 20;

pub fn plugin_init() -> Result<(), cudaError> {
    let mut d_scratch: *mut c_void = std::ptr::null_mut();
    unsafe {
        let st = cudaMalloc(&mut d_scratch, SCRATCH_BYTES);
        if st != cudaError::cudaSuccess {
            return Err(st);
        }
        let st = cudaMemset(d_scratch, 0, SCRATCH_BYTES);
        if st != cudaError::cudaSuccess {
            cudaFree(d_scratch);
            return Err(st);
        }
        host_register_buffer(c"plugin.scratch".as_ptr(), d_scratch, SCRATCH_BYTES);
    }
    Ok(())
}

//! case: a serving crate gets device buffers from a C memory pool declared in its own extern block (no body in the program); the pointer starts null and its address is handed to pool_acquire.
//! expect: none
use cudarc::runtime::sys::{cudaError, cudaMemcpy, cudaMemcpyKind};
use std::ffi::c_void;
use std::mem::size_of;

unsafe extern "C" {
    fn pool_acquire(ptr: *mut *mut c_void, bytes: usize) -> i32;
    fn pool_release(ptr: *mut c_void);
}

const REQUEST_FLOATS: usize = 16 * 1024;

pub fn upload_request(features: &[f32; REQUEST_FLOATS]) -> Result<Vec<f32>, i32> {
    let mut d_req: *mut c_void = std::ptr::null_mut();
    let mut echo = vec![0.0f32; REQUEST_FLOATS];
    unsafe {
        let rc = pool_acquire(&mut d_req, REQUEST_FLOATS * size_of::<f32>());
        if rc != 0 {
            return Err(rc);
        }
        let a = cudaMemcpy(d_req, features.as_ptr() as *const c_void, REQUEST_FLOATS * size_of::<f32>(), cudaMemcpyKind::cudaMemcpyHostToDevice);
        let b = cudaMemcpy(echo.as_mut_ptr() as *mut c_void, d_req, REQUEST_FLOATS * size_of::<f32>(), cudaMemcpyKind::cudaMemcpyDeviceToHost);
        pool_release(d_req);
        if a != cudaError::cudaSuccess || b != cudaError::cudaSuccess {
            return Err(-1);
        }
    }
    Ok(echo)
}

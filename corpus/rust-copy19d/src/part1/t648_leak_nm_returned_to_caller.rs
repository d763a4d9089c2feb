//! case: an upload helper cudaMalloc's and fills a buffer and returns the pointer; its caller reads it back and cudaFree's it.
//! expect: none
use cudarc::runtime::sys::{cudaError, cudaFree, cudaMalloc, cudaMemcpy, cudaMemcpyKind};
use std::ffi::c_void;
use std::mem::size_of;

const N: usize = 8192;

fn upload(host: &[f32; N]) -> Result<*mut c_void, cudaError> {
    let mut d: *mut c_void = std::ptr::null_mut();
    unsafe {
        let st = cudaMalloc(&mut d, N * size_of::<f32>());
        if st != cudaError::cudaSuccess {
            return Err(st);
        }
        let st = cudaMemcpy(d, host.as_ptr() as *const c_void, N * size_of::<f32>(), cudaMemcpyKind::cudaMemcpyHostToDevice);
        if st != cudaError::cudaSuccess {
            cudaFree(d);
            return Err(st);
        }
    }
    Ok(d)
}

pub fn echo(host: &[f32; N]) -> Result<Vec<f32>, cudaError> {
    let d = upload(host)?;
    let mut back = vec![0.0f32; N];
    unsafe {
        let st = cudaMemcpy(back.as_mut_ptr() as *mut c_void, d, N * size_of::<f32>(), cudaMemcpyKind::cudaMemcpyDeviceToHost);
        cudaFree(d);
        if st != cudaError::cudaSuccess {
            return Err(st);
        }
    }
    Ok(back)
}

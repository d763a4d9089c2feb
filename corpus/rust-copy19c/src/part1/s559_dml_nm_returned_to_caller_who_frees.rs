//! case: near miss: a helper returns its cudaMalloc'd pointer to the caller, which frees it after use
//! expect: none

use cudarc::runtime::sys::{self, cudaMemcpyKind};
use std::ffi::c_void;
use std::mem::size_of;

const N: usize = 3000;

fn upload(values: &[f32; N]) -> Option<*mut c_void> {
    let mut d: *mut c_void = std::ptr::null_mut();
    unsafe {
        if sys::cudaMalloc(&mut d, N * size_of::<f32>()) != sys::cudaError_t::cudaSuccess {
            return None;
        }
        if sys::cudaMemcpy(d, values.as_ptr() as *const c_void, N * size_of::<f32>(), cudaMemcpyKind::cudaMemcpyHostToDevice) != sys::cudaError_t::cudaSuccess {
            sys::cudaFree(d);
            return None;
        }
    }
    Some(d)
}

pub fn first_value(values: &[f32; N]) -> Option<f32> {
    let d = upload(values)?;
    let mut first = 0.0f32;
    unsafe {
        sys::cudaMemcpy(&mut first as *mut f32 as *mut c_void, d, size_of::<f32>(), cudaMemcpyKind::cudaMemcpyDeviceToHost);
        sys::cudaFree(d);
    }
    Some(first)
}

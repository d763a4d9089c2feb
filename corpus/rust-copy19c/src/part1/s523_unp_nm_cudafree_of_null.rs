//! case: near miss: an optional debug buffer stays null when debugging is off, and cleanup calls cudaFree on it unconditionally (cudaFree(NULL) does nothing)
//! expect: none

use cudarc::runtime::sys::{self, cudaMemcpyKind};
use std::ffi::c_void;
use std::mem::size_of;

const N: usize = 1024;

pub struct Pipeline {
    d_work: *mut c_void,
    d_debug: *mut c_void,
}

impl Pipeline {
    pub fn new() -> Option<Self> {
        let mut d_work: *mut c_void = std::ptr::null_mut();
        let d_debug: *mut c_void = std::ptr::null_mut();
        unsafe {
            if sys::cudaMalloc(&mut d_work, N * size_of::<f32>()) != sys::cudaError_t::cudaSuccess {
                return None;
            }
            sys::cudaMemset(d_work, 0, N * size_of::<f32>());
        }
        Some(Pipeline { d_work, d_debug })
    }

    pub fn result(&self) -> Vec<f32> {
        let mut out = vec![0.0f32; N];
        unsafe {
            sys::cudaMemcpy(out.as_mut_ptr() as *mut c_void, self.d_work, N * size_of::<f32>(), cudaMemcpyKind::cudaMemcpyDeviceToHost);
        }
        out
    }
}

impl Drop for Pipeline {
    fn drop(&mut self) {
        unsafe {
            sys::cudaFree(self.d_debug);
            sys::cudaFree(self.d_work);
        }
    }
}

pub fn main_like() {
    if let Some(p) = Pipeline::new() {
        println!("{}", p.result()[0]);
    }
}

//! case: a physics solver pushes its #[repr(C)] parameter block (a few dozen bytes, on the stack) with cudaMemcpyAsync before every launch
//! expect: none
use std::ffi::c_void;
use std::mem::size_of;

use cudarc::runtime::result::RuntimeError;
use cudarc::runtime::sys::{self, cudaMemcpyKind, cudaStream_t};

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct SolverParams {
    pub dt: f32,
    pub gravity: [f32; 3],
    pub damping: f32,
    pub iterations: u32,
    pub bounds_min: [f32; 3],
    pub bounds_max: [f32; 3],
}

pub struct Solver {
    stream: cudaStream_t,
    d_params: *mut c_void,
}

impl Solver {
    pub fn new(stream: cudaStream_t) -> Result<Self, RuntimeError> {
        let mut d_params: *mut c_void = std::ptr::null_mut();
        unsafe { sys::cudaMalloc(&mut d_params, size_of::<SolverParams>()) }.result()?;
        Ok(Self { stream, d_params })
    }

    pub fn set_params(&mut self, p: SolverParams) -> Result<(), RuntimeError> {
        unsafe {
            sys::cudaMemcpyAsync(self.d_params, (&p as *const SolverParams).cast(), size_of::<SolverParams>(), cudaMemcpyKind::cudaMemcpyHostToDevice, self.stream)
        }
        .result()
    }
}

impl Drop for Solver {
    fn drop(&mut self) {
        unsafe {
            sys::cudaStreamSynchronize(self.stream);
            sys::cudaFree(self.d_params);
        }
    }
}

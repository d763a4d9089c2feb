//! case: a command-line tool cudaMallocs a buffer and, when the upload fails, prints the error and calls std::process::exit(2): the process ends on purpose, not a leak; the success path frees
//! expect: none
use cudarc::runtime::sys::{self, cudaError_t, cudaMemcpyKind};
use std::ffi::c_void;
use std::ptr;

const N: usize = 1024;
const BYTES: usize = N * 8;

pub fn run_tool(values: &[f64; N]) -> f64 {
    let mut d_vals: *mut c_void = ptr::null_mut();
    let rc = unsafe { sys::cudaMalloc(&mut d_vals, BYTES) };
    if rc != cudaError_t::cudaSuccess {
        eprintln!("cudaMalloc failed: {rc:?}");
        std::process::exit(2);
    }
    let rc = unsafe { sys::cudaMemcpy(d_vals, values.as_ptr() as *const c_void, BYTES, cudaMemcpyKind::cudaMemcpyHostToDevice) };
    if rc != cudaError_t::cudaSuccess {
        eprintln!("upload failed: {rc:?}");
        std::process::exit(2);
    }
    let mut back = [0.0f64; N];
    unsafe {
        sys::cudaMemcpy(back.as_mut_ptr() as *mut c_void, d_vals, BYTES, cudaMemcpyKind::cudaMemcpyDeviceToHost);
        sys::cudaFree(d_vals);
    }
    back[N - 1]
}

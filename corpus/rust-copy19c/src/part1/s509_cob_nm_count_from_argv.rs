//! case: near miss: the element count comes from the command line (unknown), the device buffer is a fixed-capacity pool
//! expect: none

use cudarc::runtime::sys::{self, cudaMemcpyKind};
use std::ffi::c_void;
use std::mem::size_of;

const CAPACITY: usize = 1 << 20;

pub fn main_like() {
    let n: usize = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(1024);
    let host = vec![3.0f32; n];
    let mut d_pool: *mut c_void = std::ptr::null_mut();
    unsafe {
        if sys::cudaMalloc(&mut d_pool, CAPACITY * size_of::<f32>()) != sys::cudaError_t::cudaSuccess {
            eprintln!("cudaMalloc failed");
            std::process::exit(1);
        }
        // the caller is trusted to pass n <= CAPACITY
        sys::cudaMemcpy(d_pool, host.as_ptr() as *const c_void, n * size_of::<f32>(), cudaMemcpyKind::cudaMemcpyHostToDevice);
        let mut check = vec![0.0f32; n];
        sys::cudaMemcpy(check.as_mut_ptr() as *mut c_void, d_pool, n * size_of::<f32>(), cudaMemcpyKind::cudaMemcpyDeviceToHost);
        println!("{}", check.iter().sum::<f32>());
        sys::cudaFree(d_pool);
    }
}

//! case: near miss: when the upload fails after cudaMalloc, the program prints the error and calls std::process::exit (the process ends on purpose)
//! expect: none

use cudarc::runtime::sys::{self, cudaMemcpyKind};
use std::ffi::c_void;
use std::mem::size_of;

const N: usize = 1 << 14;

fn fail(what: &str, rc: sys::cudaError_t) -> ! {
    eprintln!("{what} failed: {rc:?}");
    std::process::exit(1)
}

pub fn main_like() {
    let input = vec![1u16; N];
    let mut out = vec![0u16; N];
    let mut d_buf: *mut c_void = std::ptr::null_mut();
    unsafe {
        let rc = sys::cudaMalloc(&mut d_buf, N * size_of::<u16>());
        if rc != sys::cudaError_t::cudaSuccess {
            fail("cudaMalloc", rc);
        }
        let rc = sys::cudaMemcpy(d_buf, input.as_ptr() as *const c_void, N * size_of::<u16>(), cudaMemcpyKind::cudaMemcpyHostToDevice);
        if rc != sys::cudaError_t::cudaSuccess {
            fail("upload", rc);
        }
        let rc = sys::cudaMemcpy(out.as_mut_ptr() as *mut c_void, d_buf, N * size_of::<u16>(), cudaMemcpyKind::cudaMemcpyDeviceToHost);
        if rc != sys::cudaError_t::cudaSuccess {
            std::process::exit(1);
        }
        sys::cudaFree(d_buf);
    }
    println!("{}", out[N - 1]);
}

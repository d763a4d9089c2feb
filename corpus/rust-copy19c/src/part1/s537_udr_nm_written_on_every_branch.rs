//! case: near miss: the initial state is uploaded from a file named on the command line when one is given, otherwise cleared with cudaMemset; both branches write before the read
//! expect: none

use cudarc::runtime::sys::{self, cudaMemcpyKind};
use std::ffi::c_void;
use std::mem::size_of;

const STATE: usize = 1024;

pub fn main_like() {
    let mut d_state: *mut c_void = std::ptr::null_mut();
    let mut d_copy: *mut c_void = std::ptr::null_mut();
    unsafe {
        if sys::cudaMalloc(&mut d_state, STATE * size_of::<f32>()) != sys::cudaError_t::cudaSuccess {
            std::process::exit(2);
        }
        if sys::cudaMalloc(&mut d_copy, STATE * size_of::<f32>()) != sys::cudaError_t::cudaSuccess {
            std::process::exit(2);
        }
    }
    match std::env::args().nth(1) {
        Some(path) => {
            let bytes = std::fs::read(path).expect("state file");
            let state: Vec<f32> = bytes.chunks_exact(4).take(STATE).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
            unsafe {
                sys::cudaMemcpy(d_state, state.as_ptr() as *const c_void, state.len() * size_of::<f32>(), cudaMemcpyKind::cudaMemcpyHostToDevice);
            }
        }
        None => unsafe {
            sys::cudaMemset(d_state, 0, STATE * size_of::<f32>());
        },
    }
    let mut host = vec![0.0f32; STATE];
    unsafe {
        sys::cudaMemcpy(d_copy, d_state, STATE * size_of::<f32>(), cudaMemcpyKind::cudaMemcpyDeviceToDevice);
        sys::cudaMemcpy(host.as_mut_ptr() as *mut c_void, d_copy, STATE * size_of::<f32>(), cudaMemcpyKind::cudaMemcpyDeviceToHost);
        sys::cudaFree(d_copy);
        sys::cudaFree(d_state);
    }
    println!("{}", host[0]);
}

//! case: runtime API: after the readback, a failed validation returns None without freeing the pinned host buffer (cudaMallocHost) or the device buffer (cudaMalloc)
//! expect: device_memory_leak=2

use cudarc::runtime::sys::{self, cudaMemcpyKind};
use std::ffi::c_void;
use std::mem::size_of;

const N: usize = 1 << 16;

pub fn echo_through_device(input: &[u32; N]) -> Option<u64> {
    let mut h_pinned: *mut c_void = std::ptr::null_mut();
    let mut d_buf: *mut c_void = std::ptr::null_mut();
    unsafe {
        if sys::cudaMallocHost(&mut h_pinned, N * size_of::<u32>()) != sys::cudaError_t::cudaSuccess { // EXPECT: device_memory_leak
            return None;
        }
        if sys::cudaMalloc(&mut d_buf, N * size_of::<u32>()) != sys::cudaError_t::cudaSuccess { // EXPECT: device_memory_leak
            sys::cudaFreeHost(h_pinned);
            return None;
        }
        sys::cudaMemcpy(d_buf, input.as_ptr() as *const c_void, N * size_of::<u32>(), cudaMemcpyKind::cudaMemcpyHostToDevice);
        sys::cudaMemcpy(h_pinned, d_buf, N * size_of::<u32>(), cudaMemcpyKind::cudaMemcpyDeviceToHost);
        let echoed = std::slice::from_raw_parts(h_pinned as *const u32, N);
        if echoed != &input[..] {
            eprintln!("device echo mismatch");
            return None;
        }
        let sum = echoed.iter().map(|&v| v as u64).sum();
        sys::cudaFree(d_buf);
        sys::cudaFreeHost(h_pinned);
        Some(sum)
    }
}

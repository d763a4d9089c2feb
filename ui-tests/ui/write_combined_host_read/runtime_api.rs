// The CUDA runtime API: `cudaHostAlloc` with `cudaHostAllocWriteCombined`; `cudaMallocHost`
// and `cudaHostAlloc` without the flag are not write-combined.
#![cfg_attr(cuda_lint, allow(cuda_lint::device_memory_leak))] // other lints' subject: the test code leaks, or reads memory it never wrote
use std::ffi::c_void;
use std::ptr::null_mut;

use cudarc::runtime::sys::{self, cudaMemcpyKind, cudaStream_t};

const N: usize = 1 << 20;
const BYTES: usize = N * 4;

unsafe fn read_back(h: *mut c_void, d: *const c_void, s: cudaStream_t) {
    unsafe {
        sys::cudaMemcpyAsync(h, d, BYTES, cudaMemcpyKind::cudaMemcpyDeviceToHost, s);
        sys::cudaStreamSynchronize(s);
    }
}

fn fires_host_alloc_write_combined(d: *const c_void, s: cudaStream_t) -> f32 {
    unsafe {
        let mut h: *mut c_void = null_mut();
        sys::cudaHostAlloc(&mut h, BYTES, sys::cudaHostAllocWriteCombined);
        read_back(h, d, s);
        *(h as *const f32)
        //~^ write_combined_host_read
    }
}

fn fires_write_combined_and_mapped(d: *const c_void, s: cudaStream_t) -> f32 {
    unsafe {
        let mut h: *mut c_void = null_mut();
        sys::cudaHostAlloc(&mut h, BYTES, sys::cudaHostAllocWriteCombined | sys::cudaHostAllocMapped);
        read_back(h, d, s);
        std::slice::from_raw_parts(h as *const f32, N).iter().sum::<f32>()
        //~^ write_combined_host_read
    }
}

fn fires_readback_copied_out(d: *const c_void, s: cudaStream_t, out: &mut Vec<f32>) {
    unsafe {
        let mut h: *mut c_void = null_mut();
        sys::cudaHostAlloc(&mut h, BYTES, 4);
        read_back(h, d, s);
        out.extend_from_slice(std::slice::from_raw_parts(h as *const f32, N));
        //~^ write_combined_host_read
    }
}

fn ok_malloc_host_readback(d: *const c_void, s: cudaStream_t) -> f32 {
    unsafe {
        let mut h: *mut c_void = null_mut();
        sys::cudaMallocHost(&mut h, BYTES);
        read_back(h, d, s);
        *(h as *const f32)
    }
}

fn ok_host_alloc_default_flags(d: *const c_void, s: cudaStream_t) -> f32 {
    unsafe {
        let mut h: *mut c_void = null_mut();
        sys::cudaHostAlloc(&mut h, BYTES, sys::cudaHostAllocDefault);
        read_back(h, d, s);
        *(h as *const f32)
    }
}

fn ok_write_combined_upload_buffer(d: *mut c_void, s: cudaStream_t) {
    unsafe {
        let mut h: *mut c_void = null_mut();
        sys::cudaHostAlloc(&mut h, BYTES, sys::cudaHostAllocWriteCombined);
        std::slice::from_raw_parts_mut(h as *mut f32, N).fill(2.0);
        sys::cudaMemcpyAsync(d, h, BYTES, cudaMemcpyKind::cudaMemcpyHostToDevice, s);
        sys::cudaStreamSynchronize(s);
    }
}

fn main() {}

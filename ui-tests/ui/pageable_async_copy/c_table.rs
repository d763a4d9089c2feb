// Runtime functions the Rust and C++ front ends both learn from the shared C table
// (`lint/c-api`): a 2D copy and a copy to a `__device__` symbol, from pageable and from pinned
// memory.
#![cfg_attr(cuda_lint, allow(cuda_lint::device_memory_leak))] // another lint's subject: the test code leaks
use std::ffi::c_void;
use std::ptr::null_mut;

use cudarc::runtime::sys::{self, cudaMemcpyKind, cudaStream_t};

const W: usize = 1024;
const H: usize = 1024;

unsafe fn stream() -> cudaStream_t {
    let mut s: cudaStream_t = null_mut();
    unsafe { sys::cudaStreamCreate(&mut s) };
    s
}

unsafe fn pitched() -> (*mut c_void, usize) {
    let mut d: *mut c_void = null_mut();
    let mut pitch = 0usize;
    unsafe { sys::cudaMallocPitch(&mut d, &mut pitch, W * 4, H) };
    (d, pitch)
}

fn fires_2d_copy_from_a_vec() {
    unsafe {
        let s = stream();
        let (d, pitch) = pitched();
        let image = vec![0.5f32; W * H];
        sys::cudaMemcpy2DAsync(
            //~^ pageable_async_copy
            d,
            pitch,
            image.as_ptr() as *const c_void,
            W * 4,
            W * 4,
            H,
            cudaMemcpyKind::cudaMemcpyHostToDevice,
            s,
        );
        sys::cudaStreamSynchronize(s);
    }
}

fn ok_2d_copy_from_pinned_memory() {
    unsafe {
        let s = stream();
        let (d, pitch) = pitched();
        let mut image: *mut c_void = null_mut();
        sys::cudaMallocHost(&mut image, W * H * 4);
        sys::cudaMemcpy2DAsync(d, pitch, image, W * 4, W * 4, H, cudaMemcpyKind::cudaMemcpyHostToDevice, s);
        sys::cudaStreamSynchronize(s);
        sys::cudaFreeHost(image);
    }
}

fn main() {
    fires_2d_copy_from_a_vec();
    ok_2d_copy_from_pinned_memory();
}

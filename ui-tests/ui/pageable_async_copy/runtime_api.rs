// `cudaMemcpyAsync` from and into pageable memory: the direction comes from its
// `cudaMemcpyKind` argument, or, for `cudaMemcpyDefault`, from what the pointers are.
#![cfg_attr(cuda_lint, allow(cuda_lint::device_memory_leak, cuda_lint::uninitialized_device_read))] // other lints' subject: the test code leaks, or reads memory it never wrote
use std::ffi::c_void;
use std::ptr::null_mut;

use cudarc::runtime::sys::{self, cudaMemcpyKind, cudaStream_t};

const N: usize = 1 << 20;
const BYTES: usize = N * 4;

unsafe fn stream() -> cudaStream_t {
    let mut s: cudaStream_t = null_mut();
    unsafe { sys::cudaStreamCreate(&mut s) };
    s
}

unsafe fn device() -> *mut c_void {
    let mut d: *mut c_void = null_mut();
    unsafe { sys::cudaMalloc(&mut d, BYTES) };
    d
}

fn fires_host_to_device_from_a_vec() {
    unsafe {
        let s = stream();
        let d = device();
        let input = vec![1.0f32; N];
        sys::cudaMemcpyAsync(d, input.as_ptr() as *const c_void, BYTES, cudaMemcpyKind::cudaMemcpyHostToDevice, s);
        //~^ pageable_async_copy
        sys::cudaStreamSynchronize(s);
    }
}

fn fires_device_to_host_into_a_vec() -> Vec<f32> {
    unsafe {
        let s = stream();
        let d = device();
        let mut out = vec![0.0f32; N];
        sys::cudaMemcpyAsync(out.as_mut_ptr() as *mut c_void, d, BYTES, cudaMemcpyKind::cudaMemcpyDeviceToHost, s);
        //~^ pageable_async_copy
        sys::cudaStreamSynchronize(s);
        out
    }
}

fn fires_default_kind_from_a_vec() {
    unsafe {
        let s = stream();
        let d = device();
        let input = vec![1.0f32; N];
        sys::cudaMemcpyAsync(d, input.as_ptr() as *const c_void, BYTES, cudaMemcpyKind::cudaMemcpyDefault, s);
        //~^ pageable_async_copy
        sys::cudaStreamSynchronize(s);
    }
}

fn fires_kind_held_in_a_variable() {
    unsafe {
        let s = stream();
        let d = device();
        let input = [0u8; 1 << 16];
        let kind = cudaMemcpyKind::cudaMemcpyHostToDevice;
        sys::cudaMemcpyAsync(d, input.as_ptr() as *const c_void, 1 << 16, kind, s);
        //~^ pageable_async_copy
    }
}

fn send_to_device(d: *mut c_void, data: &[f32], s: cudaStream_t) {
    unsafe {
        sys::cudaMemcpyAsync(
            d,
            data.as_ptr() as *const c_void,
            std::mem::size_of_val(data),
            cudaMemcpyKind::cudaMemcpyHostToDevice,
            s,
        )
    };
}

fn fires_helper_given_a_vec_in_a_loop() {
    unsafe {
        let s = stream();
        let d = device();
        let frames: Vec<Vec<f32>> = (0..4).map(|i| vec![i as f32; N]).collect();
        for frame in &frames {
            send_to_device(d, frame, s);
            //~^ pageable_async_copy
            sys::cudaStreamSynchronize(s);
        }
    }
}

fn ok_from_cuda_malloc_host() {
    unsafe {
        let s = stream();
        let d = device();
        let mut h: *mut c_void = null_mut();
        sys::cudaMallocHost(&mut h, BYTES);
        sys::cudaMemcpyAsync(d, h, BYTES, cudaMemcpyKind::cudaMemcpyHostToDevice, s);
        sys::cudaStreamSynchronize(s);
    }
}

fn ok_into_cuda_host_alloc() {
    unsafe {
        let s = stream();
        let d = device();
        let mut h: *mut c_void = null_mut();
        sys::cudaHostAlloc(&mut h, BYTES, 0);
        sys::cudaMemcpyAsync(h, d, BYTES, cudaMemcpyKind::cudaMemcpyDeviceToHost, s);
        sys::cudaStreamSynchronize(s);
    }
}

fn ok_registered_vec() {
    unsafe {
        let s = stream();
        let d = device();
        let mut input = vec![1.0f32; N];
        sys::cudaHostRegister(input.as_mut_ptr() as *mut c_void, BYTES, 0);
        sys::cudaMemcpyAsync(d, input.as_ptr() as *const c_void, BYTES, cudaMemcpyKind::cudaMemcpyHostToDevice, s);
        sys::cudaStreamSynchronize(s);
    }
}

fn ok_device_to_device() {
    unsafe {
        let s = stream();
        let a = device();
        let b = device();
        sys::cudaMemcpyAsync(b, a, BYTES, cudaMemcpyKind::cudaMemcpyDeviceToDevice, s);
        sys::cudaMemcpyAsync(a, b, BYTES, cudaMemcpyKind::cudaMemcpyDefault, s);
    }
}

fn ok_blocking_cuda_memcpy_from_a_vec() {
    unsafe {
        let d = device();
        let input = vec![1.0f32; N];
        sys::cudaMemcpy(d, input.as_ptr() as *const c_void, BYTES, cudaMemcpyKind::cudaMemcpyHostToDevice);
    }
}

fn main() {}

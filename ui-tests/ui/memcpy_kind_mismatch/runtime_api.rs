// `cudaMemcpy`'s `cudaMemcpyKind` against where the pointers' memory was allocated, through
// cudarc's runtime bindings: swapped destination and source, a kind pasted from another copy.
#![cfg_attr(cuda_lint, allow(cuda_lint::pageable_async_copy))] // another lint's subject
#![cfg_attr(cuda_lint, allow(cuda_lint::device_memory_leak, cuda_lint::unallocated_pointer, cuda_lint::uninitialized_device_read))] // other lints' subject: the test code leaks, or reads memory it never wrote
use std::ffi::c_void;
use std::ptr::null_mut;

use cudarc::runtime::sys::{self, cudaMemcpyKind, cudaStream_t};

const N: usize = 1 << 16;
const BYTES: usize = N * 4;

unsafe fn device() -> *mut c_void {
    let mut d: *mut c_void = null_mut();
    unsafe { sys::cudaMalloc(&mut d, BYTES) };
    d
}

fn fires_upload_with_destination_and_source_swapped() {
    unsafe {
        let d = device();
        let mut input = vec![1.0f32; N];
        sys::cudaMemcpy(input.as_mut_ptr() as *mut c_void, d, BYTES, cudaMemcpyKind::cudaMemcpyHostToDevice);
        //~^ memcpy_kind_mismatch
    }
}

fn fires_readback_into_device_memory() {
    unsafe {
        let d = device();
        let other = device();
        sys::cudaMemcpy(other, d, BYTES, cudaMemcpyKind::cudaMemcpyDeviceToHost);
        //~^ memcpy_kind_mismatch
    }
}

fn fires_device_to_device_from_a_vec() {
    unsafe {
        let d = device();
        let host = vec![0u8; BYTES];
        sys::cudaMemcpy(d, host.as_ptr() as *const c_void, BYTES, cudaMemcpyKind::cudaMemcpyDeviceToDevice);
        //~^ memcpy_kind_mismatch
    }
}

fn fires_async_copy_with_the_kind_of_the_other_way(s: cudaStream_t) {
    unsafe {
        let d = device();
        let mut out = vec![0.0f32; N];
        sys::cudaMemcpyAsync(d, out.as_mut_ptr() as *const c_void, BYTES, cudaMemcpyKind::cudaMemcpyDeviceToHost, s);
        //~^ memcpy_kind_mismatch
        sys::cudaStreamSynchronize(s);
    }
}

fn ok_upload_in_the_stated_direction() {
    unsafe {
        let d = device();
        let input = vec![1.0f32; N];
        sys::cudaMemcpy(d, input.as_ptr() as *const c_void, BYTES, cudaMemcpyKind::cudaMemcpyHostToDevice);
    }
}

fn ok_default_kind_takes_the_direction_from_the_pointers() {
    unsafe {
        let d = device();
        let mut out = vec![0.0f32; N];
        sys::cudaMemcpy(out.as_mut_ptr() as *mut c_void, d, BYTES, cudaMemcpyKind::cudaMemcpyDefault);
    }
}

fn ok_managed_memory_is_either_side() {
    unsafe {
        let mut m: *mut c_void = null_mut();
        sys::cudaMallocManaged(&mut m, BYTES, 1);
        let d = device();
        sys::cudaMemcpy(d, m, BYTES, cudaMemcpyKind::cudaMemcpyHostToDevice);
        sys::cudaMemcpy(m, d, BYTES, cudaMemcpyKind::cudaMemcpyDeviceToHost);
        sys::cudaMemcpy(m, m, BYTES, cudaMemcpyKind::cudaMemcpyDeviceToDevice);
    }
}

fn ok_pointer_given_by_the_caller(p: *mut c_void) {
    unsafe {
        let d = device();
        // What `p` points to is not known: no evidence either way.
        sys::cudaMemcpy(d, p, BYTES, cudaMemcpyKind::cudaMemcpyHostToDevice);
        sys::cudaMemcpy(p, d, BYTES, cudaMemcpyKind::cudaMemcpyDeviceToDevice);
    }
}

fn main() {
    fires_upload_with_destination_and_source_swapped();
    fires_readback_into_device_memory();
    fires_device_to_device_from_a_vec();
    fires_async_copy_with_the_kind_of_the_other_way(null_mut());
    ok_upload_in_the_stated_direction();
    ok_default_kind_takes_the_direction_from_the_pointers();
    ok_managed_memory_is_either_side();
    ok_pointer_given_by_the_caller(null_mut());
}

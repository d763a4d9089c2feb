// More shapes of a stated direction against the memory: boxes and stack arrays, 2D copies,
// pointers kept in structs and returned by helpers, copies in loops; and what is no evidence.
#![cfg_attr(cuda_lint, allow(cuda_lint::pageable_async_copy))] // another lint's subject
#![cfg_attr(cuda_lint, allow(cuda_lint::device_memory_leak, cuda_lint::uninitialized_device_read))] // other lints' subject: the test code leaks, or reads memory it never wrote
use std::ffi::c_void;
use std::ptr::null_mut;

use cudarc::runtime::sys::{self, cudaMemcpyKind};

const N: usize = 4096;
const BYTES: usize = N * 4;
const UPLOAD: cudaMemcpyKind = cudaMemcpyKind::cudaMemcpyHostToDevice;

unsafe fn device() -> *mut c_void {
    let mut d: *mut c_void = null_mut();
    unsafe { sys::cudaMalloc(&mut d, BYTES) };
    d
}

struct Buffers {
    host: Vec<f32>,
    dev: *mut c_void,
}

fn fires_readback_into_a_struct_device_field(b: &mut Buffers) {
    unsafe {
        let d = device();
        b.dev = device();
        sys::cudaMemcpy(b.dev, d, BYTES, cudaMemcpyKind::cudaMemcpyDeviceToHost);
        //~^ memcpy_kind_mismatch
    }
}

fn fires_upload_from_device_memory_a_helper_returned() {
    unsafe {
        let staging = device();
        let d = device();
        sys::cudaMemcpy(d, staging, BYTES, UPLOAD);
        //~^ memcpy_kind_mismatch
    }
}

fn fires_stack_array_as_the_device_side() {
    unsafe {
        let d = device();
        let mut scratch = [0.0f32; 64];
        sys::cudaMemcpy(scratch.as_mut_ptr() as *mut c_void, d, 256, cudaMemcpyKind::cudaMemcpyHostToDevice);
        //~^ memcpy_kind_mismatch
    }
}

fn fires_2d_copy_with_swapped_pointers() {
    unsafe {
        let mut d: *mut c_void = null_mut();
        let mut pitch = 0usize;
        sys::cudaMallocPitch(&mut d, &mut pitch, 256, 16);
        let mut image = vec![0u8; 256 * 16];
        sys::cudaMemcpy2D(image.as_mut_ptr() as *mut c_void, 256, d, pitch, 256, 16, UPLOAD);
        //~^ memcpy_kind_mismatch
    }
}

fn fires_swapped_in_every_round_of_a_loop(rounds: usize) {
    unsafe {
        let d = device();
        let mut frame = vec![0.0f32; N];
        for _ in 0..rounds {
            sys::cudaMemcpy(frame.as_mut_ptr() as *mut c_void, d, BYTES, UPLOAD);
            //~^ memcpy_kind_mismatch
        }
    }
}

fn fires_boxed_host_memory_as_the_source_of_a_device_copy() {
    unsafe {
        let d = device();
        let boxed = vec![3u32; N].into_boxed_slice();
        sys::cudaMemcpy(d, boxed.as_ptr() as *const c_void, BYTES, cudaMemcpyKind::cudaMemcpyDeviceToDevice);
        //~^ memcpy_kind_mismatch
    }
}

fn ok_struct_fields_in_the_stated_direction(b: &mut Buffers) {
    unsafe {
        b.dev = device();
        sys::cudaMemcpy(b.dev, b.host.as_ptr() as *const c_void, BYTES, UPLOAD);
    }
}

fn ok_host_to_host_between_vecs() {
    unsafe {
        let a = vec![1u8; N];
        let mut b = vec![0u8; N];
        sys::cudaMemcpy(b.as_mut_ptr() as *mut c_void, a.as_ptr() as *const c_void, N, cudaMemcpyKind::cudaMemcpyHostToHost);
    }
}

fn ok_memory_of_either_kind_on_some_paths(pinned_staging: bool) {
    unsafe {
        let d = device();
        let mut host = vec![0.0f32; N];
        let dst = if pinned_staging { device() } else { host.as_mut_ptr() as *mut c_void };
        sys::cudaMemcpy(d, dst, BYTES, cudaMemcpyKind::cudaMemcpyDeviceToDevice);
    }
}

fn ok_pinned_memory_as_the_device_side() {
    unsafe {
        let mut pinned: *mut c_void = null_mut();
        sys::cudaMallocHost(&mut pinned, BYTES);
        let d = device();
        sys::cudaMemcpy(pinned, d, BYTES, cudaMemcpyKind::cudaMemcpyDeviceToDevice);
    }
}

fn ok_kind_not_a_constant(kind: cudaMemcpyKind) {
    unsafe {
        let d = device();
        let mut out = vec![0.0f32; N];
        sys::cudaMemcpy(out.as_mut_ptr() as *mut c_void, d, BYTES, kind);
    }
}

fn main() {
    let mut b = Buffers {
        host: vec![0.0; N],
        dev: null_mut(),
    };
    fires_readback_into_a_struct_device_field(&mut b);
    fires_upload_from_device_memory_a_helper_returned();
    fires_stack_array_as_the_device_side();
    fires_2d_copy_with_swapped_pointers();
    fires_swapped_in_every_round_of_a_loop(2);
    fires_boxed_host_memory_as_the_source_of_a_device_copy();
    ok_struct_fields_in_the_stated_direction(&mut b);
    ok_host_to_host_between_vecs();
    ok_memory_of_either_kind_on_some_paths(true);
    ok_pinned_memory_as_the_device_side();
    ok_kind_not_a_constant(cudaMemcpyKind::cudaMemcpyDeviceToHost);
    fires_host_to_host_from_device_memory();
}

fn fires_host_to_host_from_device_memory() {
    unsafe {
        let d = device();
        let mut out = vec![0u8; BYTES];
        sys::cudaMemcpy(out.as_mut_ptr() as *mut c_void, d, BYTES, cudaMemcpyKind::cudaMemcpyHostToHost);
        //~^ memcpy_kind_mismatch
    }
}

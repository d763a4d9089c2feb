// Host memory from the C allocator (`libc::malloc`, `calloc`, `realloc`, `posix_memalign`, or a
// `malloc` the program declares itself) and from Rust's global allocator (`std::alloc::alloc`) is
// pageable: an asynchronous copy from or into it is staged by the driver. Seed 001's example 1,
// ported: `h_data = (float*)malloc(size); cudaMemcpyAsync(d_data, h_data, size, H2D, stream)`.
#![cfg_attr(cuda_lint, allow(cuda_lint::device_memory_leak, cuda_lint::uninitialized_device_read))] // other lints' subject: the test code leaks, or reads memory it never wrote
use std::alloc::{Layout, alloc, alloc_zeroed, dealloc};
use std::ffi::c_void;
use std::ptr::null_mut;

use cudarc::runtime::sys::{self, cudaMemcpyKind, cudaStream_t};

const BYTES: usize = 1 << 22;

unsafe extern "C" {
    #[link_name = "malloc"]
    fn c_malloc(size: usize) -> *mut c_void;
    fn cuMemcpyHtoDAsync_v2(dst: u64, src: *const c_void, bytes: usize, stream: *mut c_void) -> i32;
}

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

fn fires_seed_001_example_1_malloc() {
    unsafe {
        let s = stream();
        let d_data = device();
        let h_data = libc::malloc(BYTES);
        sys::cudaMemcpyAsync(d_data, h_data, BYTES, cudaMemcpyKind::cudaMemcpyHostToDevice, s);
        //~^ pageable_async_copy
        sys::cudaStreamSynchronize(s);
        libc::free(h_data);
    }
}

fn fires_device_to_host_into_calloc() {
    unsafe {
        let s = stream();
        let d = device();
        let out = libc::calloc(BYTES / 4, 4);
        sys::cudaMemcpyAsync(out, d, BYTES, cudaMemcpyKind::cudaMemcpyDeviceToHost, s);
        //~^ pageable_async_copy
        sys::cudaStreamSynchronize(s);
        libc::free(out);
    }
}

fn fires_realloc_grown_buffer() {
    unsafe {
        let s = stream();
        let d = device();
        let small = libc::malloc(16);
        let grown = libc::realloc(small, BYTES);
        sys::cudaMemcpyAsync(d, grown, BYTES, cudaMemcpyKind::cudaMemcpyHostToDevice, s);
        //~^ pageable_async_copy
        sys::cudaStreamSynchronize(s);
    }
}

fn fires_posix_memalign() {
    unsafe {
        let s = stream();
        let d = device();
        let mut aligned: *mut c_void = null_mut();
        libc::posix_memalign(&mut aligned, 4096, BYTES);
        sys::cudaMemcpyAsync(d, aligned, BYTES, cudaMemcpyKind::cudaMemcpyHostToDevice, s);
        //~^ pageable_async_copy
        sys::cudaStreamSynchronize(s);
    }
}

fn fires_own_extern_malloc_with_the_driver_api() {
    unsafe {
        let d = device();
        let h = c_malloc(BYTES);
        cuMemcpyHtoDAsync_v2(d as u64, h, BYTES, null_mut());
        //~^ pageable_async_copy
    }
}

fn fires_rust_global_allocator() {
    unsafe {
        let s = stream();
        let d = device();
        let layout = Layout::from_size_align(BYTES, 64).unwrap();
        let h = alloc(layout);
        sys::cudaMemcpyAsync(d, h as *const c_void, BYTES, cudaMemcpyKind::cudaMemcpyHostToDevice, s);
        //~^ pageable_async_copy
        sys::cudaStreamSynchronize(s);
        dealloc(h, layout);
    }
}

fn fires_rust_zeroed_allocation_into() {
    unsafe {
        let s = stream();
        let d = device();
        let layout = Layout::from_size_align(BYTES, 64).unwrap();
        let h = alloc_zeroed(layout);
        sys::cudaMemcpyAsync(h as *mut c_void, d, BYTES, cudaMemcpyKind::cudaMemcpyDeviceToHost, s);
        //~^ pageable_async_copy
        sys::cudaStreamSynchronize(s);
    }
}

fn ok_cuda_malloc_host() {
    unsafe {
        let s = stream();
        let d = device();
        let mut h: *mut c_void = null_mut();
        sys::cudaMallocHost(&mut h, BYTES);
        sys::cudaMemcpyAsync(d, h, BYTES, cudaMemcpyKind::cudaMemcpyHostToDevice, s);
        sys::cudaStreamSynchronize(s);
    }
}

fn ok_malloc_then_registered() {
    unsafe {
        let s = stream();
        let d = device();
        let h = libc::malloc(BYTES);
        sys::cudaHostRegister(h, BYTES, 0);
        sys::cudaMemcpyAsync(d, h, BYTES, cudaMemcpyKind::cudaMemcpyHostToDevice, s);
        sys::cudaStreamSynchronize(s);
        sys::cudaHostUnregister(h);
        libc::free(h);
    }
}

fn ok_malloc_with_a_synchronous_copy() {
    unsafe {
        let d = device();
        let h = libc::malloc(BYTES);
        sys::cudaMemcpy(d, h, BYTES, cudaMemcpyKind::cudaMemcpyHostToDevice);
        libc::free(h);
    }
}

fn ok_malloc_only_for_host_work() {
    unsafe {
        let s = stream();
        let d = device();
        let scratch = libc::malloc(BYTES) as *mut u8;
        scratch.write_bytes(0, BYTES);
        let mut pinned: *mut c_void = null_mut();
        sys::cudaMallocHost(&mut pinned, BYTES);
        sys::cudaMemcpyAsync(d, pinned, BYTES, cudaMemcpyKind::cudaMemcpyHostToDevice, s);
        sys::cudaStreamSynchronize(s);
        libc::free(scratch as *mut c_void);
    }
}

fn ok_device_to_device_from_malloc_named_buffer() {
    unsafe {
        let s = stream();
        let src = device();
        let dst = device();
        let label = libc::malloc(64);
        sys::cudaMemcpyAsync(dst, src, BYTES, cudaMemcpyKind::cudaMemcpyDeviceToDevice, s);
        sys::cudaStreamSynchronize(s);
        libc::free(label);
    }
}

fn main() {
    fires_seed_001_example_1_malloc();
    fires_device_to_host_into_calloc();
    fires_realloc_grown_buffer();
    fires_posix_memalign();
    fires_own_extern_malloc_with_the_driver_api();
    fires_rust_global_allocator();
    fires_rust_zeroed_allocation_into();
    ok_cuda_malloc_host();
    ok_malloc_then_registered();
    ok_malloc_with_a_synchronous_copy();
    ok_malloc_only_for_host_work();
    ok_device_to_device_from_malloc_named_buffer();
}

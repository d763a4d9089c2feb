// Asynchronous copies through the raw driver API, from and into memory the driver did not
// page-lock: `Vec`s, arrays, `Box`es, and the same after `cuMemHostRegister`.
#![cfg_attr(cuda_lint, allow(cuda_lint::device_memory_leak, cuda_lint::uninitialized_device_read))] // other lints' subject: the test code leaks, or reads memory it never wrote
use std::ffi::c_void;
use std::ptr::null_mut;

use cudarc::driver::result;
use cudarc::driver::sys::{self, CUdeviceptr, CUstream};

const N: usize = 1 << 20;
const BYTES: usize = N * 4;

mod ffi {
    pub type CUdeviceptr = u64;
    pub type CUstream = *mut std::ffi::c_void;
    unsafe extern "C" {
        #[link_name = "cuMemcpyHtoDAsync_v2"]
        pub fn copy_to_device(dst: CUdeviceptr, src: *const std::ffi::c_void, bytes: usize, stream: CUstream) -> i32;
        pub fn cuMemcpyAsync(dst: CUdeviceptr, src: CUdeviceptr, bytes: usize, stream: CUstream) -> i32;
    }
}

unsafe fn stream() -> CUstream {
    let mut s: CUstream = null_mut();
    unsafe { sys::cuStreamCreate(&mut s, 0) };
    s
}

unsafe fn device() -> CUdeviceptr {
    let mut d: CUdeviceptr = 0;
    unsafe { sys::cuMemAlloc_v2(&mut d, BYTES) };
    d
}

fn fires_upload_from_a_vec() {
    unsafe {
        let s = stream();
        let d = device();
        let input = vec![1.0f32; N];
        sys::cuMemcpyHtoDAsync_v2(d, input.as_ptr() as *const c_void, BYTES, s);
        //~^ pageable_async_copy
        sys::cuStreamSynchronize(s);
    }
}

fn fires_download_into_a_boxed_slice() -> Box<[f32]> {
    unsafe {
        let s = stream();
        let d = device();
        let mut out = vec![0.0f32; N].into_boxed_slice();
        sys::cuMemcpyDtoHAsync_v2(out.as_mut_ptr() as *mut c_void, d, BYTES, s);
        //~^ pageable_async_copy
        sys::cuStreamSynchronize(s);
        out
    }
}

fn fires_result_wrapper_given_an_array() {
    unsafe {
        let s = stream();
        let d = device();
        let header = [0u32; 1 << 16];
        let _ = result::memcpy_htod_async(d, &header, s);
        //~^ pageable_async_copy
    }
}

fn fires_own_binding_under_another_name() {
    unsafe {
        let s = stream();
        let d = device();
        let input = vec![1u8; BYTES];
        ffi::copy_to_device(d, input.as_ptr() as *const c_void, BYTES, s as ffi::CUstream);
        //~^ pageable_async_copy
    }
}

fn fires_unified_addressing_copy_from_a_vec() {
    unsafe {
        let s = stream();
        let d = device();
        let input = vec![1.0f32; N];
        ffi::cuMemcpyAsync(d, input.as_ptr() as u64, BYTES, s as ffi::CUstream);
        //~^ pageable_async_copy
    }
}

fn fires_registered_on_one_branch_only(register: bool) {
    unsafe {
        let s = stream();
        let d = device();
        let mut input = vec![1.0f32; N];
        if register {
            sys::cuMemHostRegister_v2(input.as_mut_ptr() as *mut c_void, BYTES, 0);
        }
        sys::cuMemcpyHtoDAsync_v2(d, input.as_ptr() as *const c_void, BYTES, s);
        //~^ pageable_async_copy
        sys::cuStreamSynchronize(s);
    }
}

fn upload(d: CUdeviceptr, host: &[f32], s: CUstream) {
    unsafe { sys::cuMemcpyHtoDAsync_v2(d, host.as_ptr() as *const c_void, std::mem::size_of_val(host), s) };
}

fn fires_helper_given_a_vec() {
    unsafe {
        let s = stream();
        let d = device();
        let input = vec![0.5f32; N];
        upload(d, &input, s);
        //~^ pageable_async_copy
        sys::cuStreamSynchronize(s);
    }
}

fn ok_upload_from_cu_mem_alloc_host() {
    unsafe {
        let s = stream();
        let d = device();
        let mut host: *mut c_void = null_mut();
        sys::cuMemAllocHost_v2(&mut host, BYTES);
        sys::cuMemcpyHtoDAsync_v2(d, host, BYTES, s);
        sys::cuStreamSynchronize(s);
    }
}

fn ok_download_into_cu_mem_host_alloc() {
    unsafe {
        let s = stream();
        let d = device();
        let mut host: *mut c_void = null_mut();
        sys::cuMemHostAlloc(&mut host, BYTES, sys::CU_MEMHOSTALLOC_PORTABLE);
        sys::cuMemcpyDtoHAsync_v2(host, d, BYTES, s);
        sys::cuStreamSynchronize(s);
    }
}

fn ok_registered_vec() {
    unsafe {
        let s = stream();
        let d = device();
        let mut input = vec![1.0f32; N];
        sys::cuMemHostRegister_v2(input.as_mut_ptr() as *mut c_void, BYTES, 0);
        sys::cuMemcpyHtoDAsync_v2(d, input.as_ptr() as *const c_void, BYTES, s);
        sys::cuStreamSynchronize(s);
        sys::cuMemHostUnregister(input.as_mut_ptr() as *mut c_void);
    }
}

fn ok_blocking_copy_from_a_vec() {
    unsafe {
        let d = device();
        let input = vec![1.0f32; N];
        sys::cuMemcpyHtoD_v2(d, input.as_ptr() as *const c_void, BYTES);
    }
}

fn ok_device_to_device() {
    unsafe {
        let s = stream();
        let a = device();
        let b = device();
        sys::cuMemcpyDtoDAsync_v2(b, a, BYTES, s);
        ffi::cuMemcpyAsync(a, b, BYTES, s as ffi::CUstream);
    }
}

fn ok_helper_given_pinned_memory() {
    unsafe {
        let s = stream();
        let d = device();
        let mut host: *mut c_void = null_mut();
        sys::cuMemAllocHost_v2(&mut host, BYTES);
        upload(d, std::slice::from_raw_parts(host as *const f32, N), s);
        sys::cuStreamSynchronize(s);
    }
}

fn ok_memset_on_the_device() {
    unsafe {
        let s = stream();
        let d = device();
        sys::cuMemsetD32Async(d, 0, N, s);
        sys::cuStreamSynchronize(s);
    }
}

fn main() {}

// What the shared C table (`lint/c-api`, read by the C++ front end too) adds for a crate's own
// bindings: the driver's functions under the names `cuda.h` gives them (`cuMemAlloc`, not only
// the `_v2` symbol), and the C library's `memcpy` as a host read and write.
#![cfg_attr(cuda_lint, allow(cuda_lint::device_memory_leak, cuda_lint::uninitialized_device_read))] // other lints' subject: the test code leaks, or reads memory it never wrote
use std::ffi::c_void;
use std::ptr::null_mut;

const N: usize = 1 << 20;
const BYTES: usize = N * 4;

mod ffi {
    #![allow(non_camel_case_types)]
    pub type CUdeviceptr = u64;
    pub type CUstream = *mut std::ffi::c_void;
    pub type CUresult = i32;
    unsafe extern "C" {
        pub fn cuStreamCreate(stream: *mut CUstream, flags: u32) -> CUresult;
        pub fn cuStreamSynchronize(stream: CUstream) -> CUresult;
        pub fn cuMemAlloc(dptr: *mut CUdeviceptr, bytes: usize) -> CUresult;
        pub fn cuMemAllocHost(pp: *mut *mut std::ffi::c_void, bytes: usize) -> CUresult;
        pub fn cuMemcpyDtoHAsync(dst: *mut std::ffi::c_void, src: CUdeviceptr, bytes: usize, stream: CUstream) -> CUresult;
        pub fn memcpy(dst: *mut std::ffi::c_void, src: *const std::ffi::c_void, n: usize) -> *mut std::ffi::c_void;
    }
}

unsafe fn readback() -> (ffi::CUstream, *mut c_void) {
    unsafe {
        let mut s: ffi::CUstream = null_mut();
        ffi::cuStreamCreate(&mut s, 1);
        let mut d: ffi::CUdeviceptr = 0;
        ffi::cuMemAlloc(&mut d, BYTES);
        let mut host: *mut c_void = null_mut();
        ffi::cuMemAllocHost(&mut host, BYTES);
        ffi::cuMemcpyDtoHAsync(host, d, BYTES, s);
        (s, host)
    }
}

fn fires_memcpy_out_of_pinned_memory_before_the_copy_lands(out: &mut [f32]) {
    unsafe {
        let (s, host) = readback();
        ffi::memcpy(out.as_mut_ptr() as *mut c_void, host, BYTES);
        //~^ missing_sync
        ffi::cuStreamSynchronize(s);
    }
}

fn ok_memcpy_after_the_stream_is_synchronized(out: &mut [f32]) {
    unsafe {
        let (s, host) = readback();
        ffi::cuStreamSynchronize(s);
        ffi::memcpy(out.as_mut_ptr() as *mut c_void, host, BYTES);
    }
}

fn main() {
    let mut out = vec![0.0f32; N];
    fires_memcpy_out_of_pinned_memory_before_the_copy_lands(&mut out);
    ok_memcpy_after_the_stream_is_synchronized(&mut out);
}

// The driver API's functions of one direction (`cuMemcpyHtoD`, `cuMemcpyDtoH`), through cudarc's
// `sys` bindings and a crate's own: device addresses are `u64`s, easy to fill with a host
// pointer.
#![cfg_attr(cuda_lint, allow(cuda_lint::device_memory_leak, cuda_lint::uninitialized_device_read))] // other lints' subject: the test code leaks, or reads memory it never wrote
use std::ffi::c_void;

use cudarc::driver::sys::{self, CUdeviceptr};

const N: usize = 1 << 16;
const BYTES: usize = N * 4;

mod ffi {
    pub type CUdeviceptr = u64;
    unsafe extern "C" {
        pub fn cuMemAlloc(dptr: *mut CUdeviceptr, bytes: usize) -> i32;
        pub fn cuMemcpyHtoD(dst: CUdeviceptr, src: *const std::ffi::c_void, bytes: usize) -> i32;
        pub fn cuMemcpyDtoH(dst: *mut std::ffi::c_void, src: CUdeviceptr, bytes: usize) -> i32;
    }
}

unsafe fn device() -> CUdeviceptr {
    let mut d: CUdeviceptr = 0;
    unsafe { sys::cuMemAlloc_v2(&mut d, BYTES) };
    d
}

fn fires_upload_into_a_host_vec() {
    unsafe {
        let mut staging = vec![0.0f32; N];
        let input = vec![1.0f32; N];
        sys::cuMemcpyHtoD_v2(staging.as_mut_ptr() as CUdeviceptr, input.as_ptr() as *const c_void, BYTES);
        //~^ memcpy_kind_mismatch
    }
}

fn fires_readback_from_a_host_vec() {
    unsafe {
        let input = vec![1.0f32; N];
        let mut out = vec![0.0f32; N];
        sys::cuMemcpyDtoH_v2(out.as_mut_ptr() as *mut c_void, input.as_ptr() as CUdeviceptr, BYTES);
        //~^ memcpy_kind_mismatch
    }
}

fn fires_own_binding_readback_into_device_memory() {
    unsafe {
        let mut a: ffi::CUdeviceptr = 0;
        let mut b: ffi::CUdeviceptr = 0;
        ffi::cuMemAlloc(&mut a, BYTES);
        ffi::cuMemAlloc(&mut b, BYTES);
        ffi::cuMemcpyDtoH(b as *mut c_void, a, BYTES);
        //~^ memcpy_kind_mismatch
    }
}

fn ok_upload_into_device_memory() {
    unsafe {
        let d = device();
        let input = vec![1.0f32; N];
        sys::cuMemcpyHtoD_v2(d, input.as_ptr() as *const c_void, BYTES);
    }
}

fn ok_readback_into_a_vec() {
    unsafe {
        let d = device();
        let mut out = vec![0.0f32; N];
        sys::cuMemcpyDtoH_v2(out.as_mut_ptr() as *mut c_void, d, BYTES);
    }
}

fn ok_own_binding_round_trip() {
    unsafe {
        let mut d: ffi::CUdeviceptr = 0;
        ffi::cuMemAlloc(&mut d, BYTES);
        let input = vec![1.0f32; N];
        let mut out = vec![0.0f32; N];
        ffi::cuMemcpyHtoD(d, input.as_ptr() as *const c_void, BYTES);
        ffi::cuMemcpyDtoH(out.as_mut_ptr() as *mut c_void, d, BYTES);
    }
}

fn ok_readback_into_pinned_memory() {
    unsafe {
        let d = device();
        let mut pinned: *mut c_void = std::ptr::null_mut();
        sys::cuMemAllocHost_v2(&mut pinned, BYTES);
        sys::cuMemcpyDtoH_v2(pinned, d, BYTES);
    }
}

fn main() {
    fires_upload_into_a_host_vec();
    fires_readback_from_a_host_vec();
    fires_own_binding_readback_into_device_memory();
    ok_upload_into_device_memory();
    ok_readback_into_a_vec();
    ok_own_binding_round_trip();
    ok_readback_into_pinned_memory();
}

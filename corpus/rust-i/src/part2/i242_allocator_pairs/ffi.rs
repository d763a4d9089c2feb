#![allow(non_snake_case)]
use std::ffi::c_void;

pub const CUDA_HOST_ALLOC_PORTABLE: u32 = 1;
pub const CUDA_HOST_REGISTER_DEFAULT: u32 = 0;

#[link(name = "cudart")]
unsafe extern "C" {
    pub fn cudaMalloc(devPtr: *mut *mut c_void, size: usize) -> i32;
    pub fn cudaFree(devPtr: *mut c_void) -> i32;
    pub fn cudaHostAlloc(pHost: *mut *mut c_void, size: usize, flags: u32) -> i32;
    pub fn cudaFreeHost(ptr: *mut c_void) -> i32;
    pub fn cudaHostRegister(ptr: *mut c_void, size: usize, flags: u32) -> i32;
    pub fn cudaHostUnregister(ptr: *mut c_void) -> i32;
}

//! The subset of the CUDA runtime API the service uses, plus the launcher exported by the
//! service's own CUDA library (libgpuhash, built from sha256.cu).
#![allow(non_camel_case_types, non_snake_case)]

use std::ffi::c_void;

pub type CudaStreamT = *mut c_void;

pub const CUDA_STREAM_NON_BLOCKING: u32 = 1;
pub const MEMCPY_HOST_TO_DEVICE: i32 = 1;
pub const MEMCPY_DEVICE_TO_HOST: i32 = 2;

#[link(name = "cudart")]
unsafe extern "C" {
    pub fn cudaMalloc(dev_ptr: *mut *mut c_void, size: usize) -> i32;
    pub fn cudaFree(dev_ptr: *mut c_void) -> i32;
    pub fn cudaMallocHost(ptr: *mut *mut c_void, size: usize) -> i32;
    pub fn cudaFreeHost(ptr: *mut c_void) -> i32;
    pub fn cudaMemcpy(dst: *mut c_void, src: *const c_void, count: usize, kind: i32) -> i32;
    pub fn cudaMemcpyAsync(dst: *mut c_void, src: *const c_void, count: usize, kind: i32, stream: CudaStreamT) -> i32;
    pub fn cudaStreamCreateWithFlags(stream: *mut CudaStreamT, flags: u32) -> i32;
    pub fn cudaStreamSynchronize(stream: CudaStreamT) -> i32;
    pub fn cudaStreamDestroy(stream: CudaStreamT) -> i32;
}

#[link(name = "gpuhash")]
unsafe extern "C" {
    pub fn sha256_batch_launch(input: *const u8, offsets: *const u32, count: u32, digests: *mut u8, stream: CudaStreamT) -> i32;
}

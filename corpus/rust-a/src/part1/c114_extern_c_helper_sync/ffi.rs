//! The CUDA runtime functions this tool needs, declared by hand (linked against libcudart).
use std::ffi::c_void;

pub type CudaStream = *mut c_void;
pub const CUDA_MEMCPY_DEVICE_TO_HOST: u32 = 2;
pub const CUDA_STREAM_NON_BLOCKING: u32 = 1;

unsafe extern "C" {
    pub fn cudaStreamCreateWithFlags(stream: *mut CudaStream, flags: u32) -> i32;
    pub fn cudaStreamSynchronize(stream: CudaStream) -> i32;
    pub fn cudaMalloc(ptr: *mut *mut c_void, size: usize) -> i32;
    pub fn cudaMemsetAsync(ptr: *mut c_void, value: i32, size: usize, stream: CudaStream) -> i32;
    pub fn cudaHostAlloc(ptr: *mut *mut c_void, size: usize, flags: u32) -> i32;
    pub fn cudaMemcpyAsync(dst: *mut c_void, src: *const c_void, count: usize, kind: u32, stream: CudaStream) -> i32;
}

/// Waits for everything enqueued on `stream`.
pub fn wait(stream: CudaStream) -> Result<(), i32> {
    match unsafe { cudaStreamSynchronize(stream) } {
        0 => Ok(()),
        e => Err(e),
    }
}

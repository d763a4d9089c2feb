use std::ffi::{c_int, c_uint, c_void};

pub type CudaStream = *mut c_void;

pub const CUDA_MEMCPY_HOST_TO_DEVICE: c_int = 1;
pub const CUDA_MEMCPY_DEVICE_TO_HOST: c_int = 2;
pub const CUDA_STREAM_NON_BLOCKING: c_uint = 1;

#[repr(C)]
#[derive(Clone, Copy)]
pub struct Dim3 {
    pub x: c_uint,
    pub y: c_uint,
    pub z: c_uint,
}

#[link(name = "cudart")]
unsafe extern "C" {
    pub fn cudaMalloc(dev_ptr: *mut *mut c_void, size: usize) -> c_int;
    pub fn cudaMallocHost(ptr: *mut *mut c_void, size: usize) -> c_int;
    pub fn cudaFree(dev_ptr: *mut c_void) -> c_int;
    pub fn cudaFreeHost(ptr: *mut c_void) -> c_int;
    pub fn cudaStreamCreateWithFlags(stream: *mut CudaStream, flags: c_uint) -> c_int;
    pub fn cudaStreamDestroy(stream: CudaStream) -> c_int;
    pub fn cudaStreamSynchronize(stream: CudaStream) -> c_int;
    pub fn cudaMemcpyAsync(dst: *mut c_void, src: *const c_void, count: usize, kind: c_int, stream: CudaStream) -> c_int;
    pub fn cudaLaunchKernel(
        func: *const c_void,
        grid: Dim3,
        block: Dim3,
        args: *mut *mut c_void,
        shared_mem: usize,
        stream: CudaStream,
    ) -> c_int;
}

// Host stub of `fir_direct(const float* x, const float* taps, float* y, int n, int ntaps)`,
// compiled by nvcc into the linked static library.
unsafe extern "C" {
    pub static fir_direct: u8;
}

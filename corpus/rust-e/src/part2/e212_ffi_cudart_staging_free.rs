//! case: a thin FFI layer over libcudart allocates a scoped staging buffer with cudaMallocHost and releases it with cudaFree, the device free, instead of cudaFreeHost
//! expect: mismatched_free=1

use std::ffi::c_void;
use std::ptr::null_mut;

pub type CudaError = i32;
pub type CudaStream = *mut c_void;
pub const CUDA_SUCCESS: CudaError = 0;
pub const MEMCPY_HOST_TO_DEVICE: i32 = 1;

unsafe extern "C" {
    fn cudaMallocHost(ptr: *mut *mut c_void, size: usize) -> CudaError;
    fn cudaFree(dev_ptr: *mut c_void) -> CudaError;
    fn cudaMemcpyAsync(dst: *mut c_void, src: *const c_void, count: usize, kind: i32, stream: CudaStream) -> CudaError;
    fn cudaStreamSynchronize(stream: CudaStream) -> CudaError;
}

#[derive(Debug)]
pub struct CudaFailure {
    pub call: &'static str,
    pub code: CudaError,
}

fn check(call: &'static str, code: CudaError) -> Result<(), CudaFailure> {
    if code == CUDA_SUCCESS { Ok(()) } else { Err(CudaFailure { call, code }) }
}

/// Runs `fill` on a page-locked scratch buffer of `bytes` bytes, then uploads it to `dst`.
pub fn upload_with_staging<F>(dst: *mut c_void, bytes: usize, stream: CudaStream, fill: F) -> Result<(), CudaFailure>
where
    F: FnOnce(&mut [u8]),
{
    let mut staging: *mut c_void = null_mut();
    check("cudaMallocHost", unsafe { cudaMallocHost(&mut staging, bytes) })?;

    let bytes_view = unsafe { std::slice::from_raw_parts_mut(staging as *mut u8, bytes) };
    fill(bytes_view);

    let copied = check("cudaMemcpyAsync", unsafe { cudaMemcpyAsync(dst, staging, bytes, MEMCPY_HOST_TO_DEVICE, stream) })
        .and_then(|_| check("cudaStreamSynchronize", unsafe { cudaStreamSynchronize(stream) }));

    let freed = check("cudaFree", unsafe { cudaFree(staging) }); // EXPECT: mismatched_free
    copied.and(freed)
}

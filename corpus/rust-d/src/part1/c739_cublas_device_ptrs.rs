//! case: a PCA preprocessing step allocates with cuMemAlloc (cudarc's driver::result), uploads with a blocking copy on the legacy default stream, and hands the raw device pointers to cuBLAS (saxpy, then snrm2 in host pointer mode, which returns the norm to a host variable once it is computed); the device pointers are never dereferenced on the host
//! expect: none

use std::mem::size_of;
use std::sync::Arc;

use cudarc::cublas::result::CublasError;
use cudarc::cublas::sys as cublas;
use cudarc::driver::result::{self as cu, DriverError};
use cudarc::driver::sys::CUdeviceptr;
use cudarc::driver::CudaContext;

#[derive(Debug)]
pub enum PcaError {
    Cuda(DriverError),
    Blas(CublasError),
}

impl From<DriverError> for PcaError {
    fn from(e: DriverError) -> Self {
        PcaError::Cuda(e)
    }
}

impl From<CublasError> for PcaError {
    fn from(e: CublasError) -> Self {
        PcaError::Blas(e)
    }
}

/// Device memory owned by the centering step.
struct DeviceVec {
    ptr: CUdeviceptr,
    len: usize,
}

impl DeviceVec {
    fn upload(host: &[f32]) -> Result<Self, DriverError> {
        let ptr = unsafe { cu::malloc_sync(host.len() * size_of::<f32>())? };
        unsafe { cu::memcpy_htod_sync(ptr, host)? };
        Ok(Self { ptr, len: host.len() })
    }

    fn as_f32(&self) -> *mut f32 {
        self.ptr as *mut f32
    }
}

impl Drop for DeviceVec {
    fn drop(&mut self) {
        unsafe {
            let _ = cu::ctx::synchronize();
            let _ = cu::free_sync(self.ptr);
        }
    }
}

pub struct Centering {
    _ctx: Arc<CudaContext>,
    handle: cublas::cublasHandle_t, // default (legacy) stream, host pointer mode
}

impl Centering {
    pub fn new(ctx: Arc<CudaContext>) -> Result<Self, PcaError> {
        ctx.bind_to_thread()?;
        let handle = cudarc::cublas::result::create_handle()?;
        Ok(Self { _ctx: ctx, handle })
    }

    /// Subtracts `mean` from `sample` on the GPU and returns the norm of the centered sample.
    pub fn centered_norm(&self, sample: &[f32], mean: &[f32]) -> Result<f32, PcaError> {
        let x = DeviceVec::upload(sample)?;
        let mu = DeviceVec::upload(mean)?;
        let n = x.len.min(mu.len) as i32;
        let alpha = -1.0f32;
        let mut norm = 0.0f32;
        unsafe {
            cublas::cublasSaxpy_v2(self.handle, n, &alpha, mu.as_f32(), 1, x.as_f32(), 1).result()?;
            cublas::cublasSnrm2_v2(self.handle, n, x.as_f32(), 1, &mut norm).result()?;
        }
        Ok(norm)
    }
}

impl Drop for Centering {
    fn drop(&mut self) {
        unsafe {
            let _ = cublas::cublasDestroy_v2(self.handle);
        }
    }
}

//! case: a runtime-API audio resampler copies with cudaMemcpyDefault from a pageable Vec in one path and from cudaMallocHost memory in the other
//! expect: pageable_async_copy=1
use std::ffi::c_void;
use std::ptr;

use cudarc::runtime::result::RuntimeError;
use cudarc::runtime::sys::{self, cudaMemcpyKind, cudaStream_t};

pub struct Resampler {
    stream: cudaStream_t,
    d_in: *mut c_void,
    staging: *mut f32,
    cap: usize,
}

impl Resampler {
    pub fn new(stream: cudaStream_t, cap: usize) -> Result<Self, RuntimeError> {
        let mut d_in: *mut c_void = ptr::null_mut();
        let mut staging: *mut c_void = ptr::null_mut();
        unsafe {
            sys::cudaMalloc(&mut d_in, cap * 4).result()?;
            sys::cudaMallocHost(&mut staging, cap * 4).result()?;
        }
        Ok(Self { stream, d_in, staging: staging.cast(), cap })
    }

    /// Straight from the decoder's Vec: pageable.
    pub fn push_direct(&mut self, samples: &Vec<f32>) -> Result<(), RuntimeError> {
        let n = samples.len().min(self.cap);
        unsafe { sys::cudaMemcpyAsync(self.d_in, samples.as_ptr().cast(), n * 4, cudaMemcpyKind::cudaMemcpyDefault, self.stream) }.result() // EXPECT: pageable_async_copy
    }

    /// Through the pinned staging buffer: a true async copy. Waits first for the previous one.
    pub fn push_staged(&mut self, samples: &[f32]) -> Result<(), RuntimeError> {
        let n = samples.len().min(self.cap);
        unsafe {
            sys::cudaStreamSynchronize(self.stream).result()?;
            ptr::copy_nonoverlapping(samples.as_ptr(), self.staging, n);
            sys::cudaMemcpyAsync(self.d_in, self.staging as *const c_void, n * 4, cudaMemcpyKind::cudaMemcpyDefault, self.stream).result()
        }
    }
}

impl Drop for Resampler {
    fn drop(&mut self) {
        unsafe {
            sys::cudaStreamSynchronize(self.stream);
            sys::cudaFreeHost(self.staging.cast());
            sys::cudaFree(self.d_in);
        }
    }
}

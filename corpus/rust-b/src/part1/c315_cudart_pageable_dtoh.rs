//! case: a runtime-API readback into a plain Vec is read right after cudaMemcpyAsync returns: complete by CUDA's rules for pageable destinations, only slow
//! expect: pageable_async_copy=1
use std::ffi::c_void;
use std::ptr;

use cudarc::runtime::result::RuntimeError;
use cudarc::runtime::sys::{self, cudaMemcpyKind, cudaStream_t};

pub struct Readout {
    stream: cudaStream_t,
}

impl Readout {
    pub fn new() -> Result<Self, RuntimeError> {
        let mut stream: cudaStream_t = ptr::null_mut();
        unsafe { sys::cudaStreamCreateWithFlags(&mut stream, sys::cudaStreamNonBlocking) }.result()?;
        Ok(Self { stream })
    }

    /// Device -> pageable host: the call returns once the copy is done.
    pub fn fetch(&self, d_src: *const c_void, n: usize) -> Result<Vec<i32>, RuntimeError> {
        let mut out = vec![0i32; n];
        unsafe {
            sys::cudaMemcpyAsync(out.as_mut_ptr().cast(), d_src, n * 4, cudaMemcpyKind::cudaMemcpyDeviceToHost, self.stream) // EXPECT: pageable_async_copy
        }
        .result()?;
        Ok(out)
    }

    pub fn argmax(&self, d_src: *const c_void, n: usize) -> Result<Option<usize>, RuntimeError> {
        let v = self.fetch(d_src, n)?;
        Ok(v.iter().enumerate().max_by_key(|(_, x)| **x).map(|(i, _)| i))
    }
}

impl Drop for Readout {
    fn drop(&mut self) {
        unsafe {
            sys::cudaStreamSynchronize(self.stream);
            sys::cudaStreamDestroy(self.stream);
        }
    }
}

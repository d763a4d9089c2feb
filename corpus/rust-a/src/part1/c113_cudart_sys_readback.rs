//! case: CUDA runtime API through cudarc::runtime::sys: a cudaMallocHost readback on a non-blocking stream read before cudaStreamSynchronize, and a second function that waits with cudaDeviceSynchronize
//! expect: missing_sync=1
use std::ffi::c_void;
use std::ptr;

use cudarc::runtime::sys::{self, cudaError, cudaMemcpyKind, cudaStream_t};

fn ok(e: cudaError) -> Result<(), cudaError> {
    if e == cudaError::cudaSuccess { Ok(()) } else { Err(e) }
}

pub struct Readout {
    stream: cudaStream_t,
    dev: *mut c_void,
    host: *mut u64,
    len: usize,
}

impl Readout {
    pub unsafe fn new(len: usize) -> Result<Self, cudaError> {
        let bytes = len * std::mem::size_of::<u64>();
        let mut stream: cudaStream_t = ptr::null_mut();
        let mut dev: *mut c_void = ptr::null_mut();
        let mut host: *mut c_void = ptr::null_mut();
        unsafe {
            ok(sys::cudaStreamCreateWithFlags(&mut stream, sys::cudaStreamNonBlocking))?;
            ok(sys::cudaMalloc(&mut dev, bytes))?;
            ok(sys::cudaMemsetAsync(dev, 0, bytes, stream))?;
            ok(sys::cudaMallocHost(&mut host, bytes))?;
        }
        Ok(Self { stream, dev, host: host.cast(), len })
    }

    unsafe fn start_copy(&self) -> Result<(), cudaError> {
        let bytes = self.len * std::mem::size_of::<u64>();
        unsafe { ok(sys::cudaMemcpyAsync(self.host.cast(), self.dev, bytes, cudaMemcpyKind::cudaMemcpyDeviceToHost, self.stream)) }
    }

    pub unsafe fn total_racy(&self) -> Result<u64, cudaError> {
        unsafe {
            self.start_copy()?;
            let host = std::slice::from_raw_parts(self.host, self.len);
            let total = host.iter().sum(); // EXPECT: missing_sync
            ok(sys::cudaStreamSynchronize(self.stream))?;
            Ok(total)
        }
    }

    pub unsafe fn total(&self) -> Result<u64, cudaError> {
        unsafe {
            self.start_copy()?;
            ok(sys::cudaDeviceSynchronize())?;
            Ok(std::slice::from_raw_parts(self.host, self.len).iter().sum())
        }
    }
}

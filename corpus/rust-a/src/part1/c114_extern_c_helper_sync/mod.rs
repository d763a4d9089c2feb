//! case: hand-written extern "C" CUDA runtime bindings in a sub-module; the pinned readback is read only after a helper in that module synchronizes the stream
//! expect: none
mod ffi;

use std::ffi::c_void;
use std::ptr;

use ffi::{CudaStream, CUDA_MEMCPY_DEVICE_TO_HOST, CUDA_STREAM_NON_BLOCKING};

fn check(code: i32) -> Result<(), i32> {
    if code == 0 { Ok(()) } else { Err(code) }
}

pub struct Gauge {
    stream: CudaStream,
    dev: *mut c_void,
    host: *mut f64,
    len: usize,
}

impl Gauge {
    pub fn new(len: usize) -> Result<Self, i32> {
        let bytes = len * 8;
        let mut stream: CudaStream = ptr::null_mut();
        let mut dev = ptr::null_mut();
        let mut host = ptr::null_mut();
        unsafe {
            check(ffi::cudaStreamCreateWithFlags(&mut stream, CUDA_STREAM_NON_BLOCKING))?;
            check(ffi::cudaMalloc(&mut dev, bytes))?;
            check(ffi::cudaMemsetAsync(dev, 0, bytes, stream))?;
            check(ffi::cudaHostAlloc(&mut host, bytes, 0))?;
        }
        Ok(Self { stream, dev, host: host.cast(), len })
    }

    pub fn read(&mut self) -> Result<f64, i32> {
        unsafe {
            check(ffi::cudaMemcpyAsync(self.host.cast(), self.dev, self.len * 8, CUDA_MEMCPY_DEVICE_TO_HOST, self.stream))?;
        }
        ffi::wait(self.stream)?;
        let values = unsafe { std::slice::from_raw_parts(self.host, self.len) };
        Ok(values.iter().sum::<f64>() / self.len as f64)
    }
}

//! case: a raw `driver::sys` pipeline records an event after the readback and synchronizes on it, on every path, before reading the pinned bytes
//! expect: none
use std::ffi::c_void;
use std::ptr;

use cudarc::driver::sys::{self, CUdeviceptr, CUevent, CUstream};
use cudarc::driver::DriverError;

pub struct Readback {
    stream: CUstream,
    done: CUevent,
    host: *mut u8,
    bytes: usize,
}

impl Readback {
    pub fn new(bytes: usize) -> Result<Self, DriverError> {
        let mut stream: CUstream = ptr::null_mut();
        let mut done: CUevent = ptr::null_mut();
        let mut host: *mut c_void = ptr::null_mut();
        unsafe {
            sys::cuStreamCreate(&mut stream, sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32).result()?;
            sys::cuEventCreate(&mut done, sys::CUevent_flags::CU_EVENT_DISABLE_TIMING as u32).result()?;
            sys::cuMemAllocHost_v2(&mut host, bytes).result()?;
        }
        Ok(Self { stream, done, host: host.cast(), bytes })
    }

    pub fn checksum(&mut self, src: CUdeviceptr, skip_check: bool) -> Result<u64, DriverError> {
        unsafe {
            sys::cuMemcpyDtoHAsync_v2(self.host.cast(), src, self.bytes, self.stream).result()?;
            sys::cuEventRecord(self.done, self.stream).result()?;
            sys::cuEventSynchronize(self.done).result()?;
        }
        if skip_check {
            return Ok(0);
        }
        let bytes = unsafe { std::slice::from_raw_parts(self.host, self.bytes) };
        Ok(bytes.iter().map(|&b| b as u64).sum())
    }
}

impl Drop for Readback {
    fn drop(&mut self) {
        unsafe {
            sys::cuStreamSynchronize(self.stream);
            sys::cuMemFreeHost(self.host.cast());
            sys::cuEventDestroy_v2(self.done);
            sys::cuStreamDestroy_v2(self.stream);
        }
    }
}

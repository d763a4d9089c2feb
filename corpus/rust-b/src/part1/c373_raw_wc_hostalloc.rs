//! case: raw cuMemHostAlloc(WRITECOMBINED) staging memory is filled for uploads, and a debug checksum later reads it back on the host
//! expect: write_combined_host_read=1
use std::ffi::c_void;
use std::ptr;

use cudarc::driver::sys::{self, CUdeviceptr, CUstream};
use cudarc::driver::DriverError;

pub struct WcStaging {
    ptr: *mut u8,
    len: usize,
}

impl WcStaging {
    pub fn new(len: usize) -> Result<Self, DriverError> {
        let mut p: *mut c_void = ptr::null_mut();
        unsafe { sys::cuMemHostAlloc(&mut p, len, sys::CU_MEMHOSTALLOC_WRITECOMBINED) }.result()?;
        Ok(Self { ptr: p.cast(), len })
    }

    pub fn upload(&mut self, src: &[u8], dst: CUdeviceptr, stream: CUstream) -> Result<u32, DriverError> {
        let n = src.len().min(self.len);
        // Host writes into write-combined memory: the intended use.
        unsafe { ptr::copy_nonoverlapping(src.as_ptr(), self.ptr, n) };
        unsafe { sys::cuMemcpyHtoDAsync_v2(dst, self.ptr.cast(), n, stream) }.result()?;
        unsafe { sys::cuStreamSynchronize(stream) }.result()?;
        Ok(self.debug_checksum(n))
    }

    fn debug_checksum(&self, n: usize) -> u32 {
        let staged = unsafe { std::slice::from_raw_parts(self.ptr, n) };
        staged.iter().fold(0u32, |h, &b| h.wrapping_mul(31).wrapping_add(b as u32)) // EXPECT: write_combined_host_read
    }
}

impl Drop for WcStaging {
    fn drop(&mut self) {
        unsafe { sys::cuMemFreeHost(self.ptr.cast()) };
    }
}

//! case: a zero-copy sensor buffer from cuMemHostAlloc(DEVICEMAP): the kernel gets the device alias, the host reads through the host pointer after syncing
//! expect: none
use std::ffi::c_void;
use std::ptr;

use cudarc::driver::sys::{self, CUdeviceptr, CUfunction, CUstream};
use cudarc::driver::DriverError;

pub struct ZeroCopy {
    host: *mut i16,
    dev: CUdeviceptr,
    len: usize,
}

impl ZeroCopy {
    pub fn new(len: usize) -> Result<Self, DriverError> {
        let mut host: *mut c_void = ptr::null_mut();
        let mut dev: CUdeviceptr = 0;
        unsafe {
            sys::cuMemHostAlloc(&mut host, len * 2, sys::CU_MEMHOSTALLOC_DEVICEMAP).result()?;
            sys::cuMemHostGetDevicePointer_v2(&mut dev, host, 0).result()?;
        }
        Ok(Self { host: host.cast(), dev, len })
    }

    /// Runs `filter(short* samples, unsigned n)` in place, then returns the peak.
    pub fn filter_peak(&mut self, stream: CUstream, filter: CUfunction) -> Result<i16, DriverError> {
        let mut dev = self.dev;
        let mut n = self.len as u32;
        let mut params = [(&mut dev as *mut CUdeviceptr).cast::<c_void>(), (&mut n as *mut u32).cast::<c_void>()];
        unsafe {
            sys::cuLaunchKernel(filter, n.div_ceil(256), 1, 1, 256, 1, 1, 0, stream, params.as_mut_ptr(), ptr::null_mut()).result()?;
            sys::cuStreamSynchronize(stream).result()?;
        }
        // Pinned host memory, read through its host pointer.
        let samples = unsafe { std::slice::from_raw_parts(self.host, self.len) };
        Ok(samples.iter().map(|s| s.saturating_abs()).max().unwrap_or(0))
    }
}

impl Drop for ZeroCopy {
    fn drop(&mut self) {
        unsafe { sys::cuMemFreeHost(self.host.cast()) };
    }
}

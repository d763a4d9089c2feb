//! case: a host staging area allocated with cuMemAllocHost (page-locked host memory) is released in `Drop` with cuMemFree, the device-memory free, instead of cuMemFreeHost
//! expect: mismatched_free=1

use std::ffi::c_void;
use std::ptr::null_mut;

use cudarc::driver::{sys, DriverError};

/// Page-locked upload area shared by the loaders of one device.
pub struct StagingArea {
    ptr: *mut c_void,
    bytes: usize,
    used: usize,
}

unsafe impl Send for StagingArea {}

impl StagingArea {
    pub fn new(bytes: usize) -> Result<Self, DriverError> {
        let mut ptr: *mut c_void = null_mut();
        unsafe { sys::cuMemAllocHost_v2(&mut ptr, bytes) }.result()?;
        Ok(Self { ptr, bytes, used: 0 })
    }

    /// Bump-allocates `len` bytes, 256-byte aligned.
    pub fn carve(&mut self, len: usize) -> Option<&mut [u8]> {
        let start = self.used.next_multiple_of(256);
        let end = start.checked_add(len)?;
        if end > self.bytes {
            return None;
        }
        self.used = end;
        Some(unsafe { std::slice::from_raw_parts_mut((self.ptr as *mut u8).add(start), len) })
    }

    pub fn reset(&mut self) {
        self.used = 0;
    }

    /// Uploads everything carved so far to `dst` and waits for it.
    pub fn flush(&mut self, dst: sys::CUdeviceptr, stream: sys::CUstream) -> Result<(), DriverError> {
        unsafe {
            sys::cuMemcpyHtoDAsync_v2(dst, self.ptr, self.used, stream).result()?;
            sys::cuStreamSynchronize(stream).result()?;
        }
        self.reset();
        Ok(())
    }
}

impl Drop for StagingArea {
    fn drop(&mut self) {
        if !self.ptr.is_null() {
            unsafe {
                let _ = sys::cuMemFree_v2(self.ptr as sys::CUdeviceptr); // EXPECT: mismatched_free
            }
            self.ptr = null_mut();
        }
    }
}

//! case: a staging buffer type allocates with `cuMemAllocHost` (cudarc's `sys`) but its `Drop`, written as if the memory came from `libc::malloc`, hands it to `libc::free` (corrupts the C heap)
//! expect: mismatched_free=1
use std::ffi::c_void;
use std::ptr::null_mut;

use cudarc::driver::sys;

pub struct HostStaging {
    ptr: *mut c_void,
    bytes: usize,
    stream: sys::CUstream,
}

impl HostStaging {
    pub fn new(bytes: usize, stream: sys::CUstream) -> Option<Self> {
        let mut ptr: *mut c_void = null_mut();
        let rc = unsafe { sys::cuMemAllocHost_v2(&mut ptr, bytes) };
        if rc != sys::CUresult::CUDA_SUCCESS || ptr.is_null() {
            return None;
        }
        Some(Self { ptr, bytes, stream })
    }

    pub fn as_mut_bytes(&mut self) -> &mut [u8] {
        unsafe { std::slice::from_raw_parts_mut(self.ptr as *mut u8, self.bytes) }
    }

    /// Enqueues the upload of the first `len` bytes.
    pub fn upload(&self, dst: sys::CUdeviceptr, len: usize) -> Result<(), sys::CUresult> {
        let rc = unsafe { sys::cuMemcpyHtoDAsync_v2(dst, self.ptr, len.min(self.bytes), self.stream) };
        if rc == sys::CUresult::CUDA_SUCCESS { Ok(()) } else { Err(rc) }
    }
}

impl Drop for HostStaging {
    fn drop(&mut self) {
        unsafe {
            // The copy may still read the buffer.
            sys::cuStreamSynchronize(self.stream);
            libc::free(self.ptr); // EXPECT: mismatched_free
        }
    }
}

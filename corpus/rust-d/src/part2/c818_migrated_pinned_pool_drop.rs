//! case: a staging buffer that used to be `malloc` + `cuMemHostRegister` now comes from `cuMemHostAlloc`, but its Drop still does the old teardown: `cuMemHostUnregister` of memory that was never registered, then `libc::free` of pinned memory
//! expect: mismatched_free=2

use std::ffi::c_void;

use cudarc::driver::sys::{self, CUdeviceptr, CUstream};
use cudarc::driver::DriverError;

pub struct StagingBuffer {
    ptr: *mut c_void,
    bytes: usize,
}

unsafe impl Send for StagingBuffer {}

impl StagingBuffer {
    pub fn new(bytes: usize) -> Result<StagingBuffer, DriverError> {
        let mut ptr = std::ptr::null_mut();
        // was: libc::malloc(bytes) + cuMemHostRegister_v2(ptr, bytes, PORTABLE)
        unsafe { sys::cuMemHostAlloc(&mut ptr, bytes, sys::CU_MEMHOSTALLOC_PORTABLE).result()? };
        Ok(StagingBuffer { ptr, bytes })
    }

    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        unsafe { std::slice::from_raw_parts_mut(self.ptr as *mut u8, self.bytes) }
    }

    /// Copies the first `len` bytes to `dst` and waits for the copy.
    pub fn flush_to(&self, dst: CUdeviceptr, len: usize, stream: CUstream) -> Result<(), DriverError> {
        assert!(len <= self.bytes);
        unsafe {
            sys::cuMemcpyHtoDAsync_v2(dst, self.ptr, len, stream).result()?;
            sys::cuStreamSynchronize(stream).result()
        }
    }
}

impl Drop for StagingBuffer {
    fn drop(&mut self) {
        unsafe {
            sys::cuMemHostUnregister(self.ptr); // EXPECT: mismatched_free
            libc::free(self.ptr); // EXPECT: mismatched_free
        }
    }
}

pub fn upload_records(records: &[[u8; 64]], dst: CUdeviceptr, stream: CUstream) -> Result<(), DriverError> {
    let bytes = records.len() * 64;
    let mut staging = StagingBuffer::new(bytes)?;
    staging
        .as_mut_slice()
        .chunks_exact_mut(64)
        .zip(records)
        .for_each(|(dst, rec)| dst.copy_from_slice(rec));
    staging.flush_to(dst, bytes, stream)
}

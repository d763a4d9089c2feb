use super::ffi::{cudaFree, cudaMallocHost};
use super::{check, CudaStatus};
use std::ffi::c_void;
use std::ptr;

/// Page-locked upload buffer, reused for every batch.
pub struct PinnedStaging {
    pub ptr: *mut c_void,
    pub bytes: usize,
}

impl PinnedStaging {
    pub fn new(words: usize) -> Result<Self, CudaStatus> {
        let bytes = words * 4;
        let mut ptr = ptr::null_mut();
        unsafe { check(cudaMallocHost(&mut ptr, bytes))? };
        Ok(PinnedStaging { ptr, bytes })
    }

    /// # Safety
    /// No copy from the buffer may be in flight.
    pub unsafe fn as_mut_bytes(&mut self) -> &mut [u8] {
        unsafe { std::slice::from_raw_parts_mut(self.ptr as *mut u8, self.bytes) }
    }
}

impl Drop for PinnedStaging {
    fn drop(&mut self) {
        unsafe {
            cudaFree(self.ptr); // EXPECT: mismatched_free
        }
    }
}

//! case: a stream-compaction step resets a 4-byte counter from the stack and reads it back into a stack variable with the async driver copies
//! expect: none
use std::mem::size_of;

use cudarc::driver::sys::{self, CUdeviceptr, CUstream};
use cudarc::driver::DriverError;

pub struct Compactor {
    stream: CUstream,
    d_count: CUdeviceptr,
}

impl Compactor {
    pub fn reset(&self) -> Result<(), DriverError> {
        let zero: u32 = 0;
        // 4 bytes from the stack; a pageable source is staged before the call returns.
        unsafe { sys::cuMemcpyHtoDAsync_v2(self.d_count, (&zero as *const u32).cast(), size_of::<u32>(), self.stream) }.result()
    }

    pub fn survivors(&self) -> Result<u32, DriverError> {
        let mut count: u32 = 0;
        // Device -> pageable: complete when the call returns.
        unsafe { sys::cuMemcpyDtoHAsync_v2((&mut count as *mut u32).cast(), self.d_count, size_of::<u32>(), self.stream) }.result()?;
        Ok(count)
    }
}

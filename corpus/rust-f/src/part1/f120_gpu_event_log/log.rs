use std::ptr::null_mut;
use std::sync::Arc;

use cudarc::driver::sys::{self, CUstream};
use cudarc::driver::{CudaContext, DriverError};

use super::growable::GrowableBuffer;

/// 32-byte records appended by kernels; the host reserves space in batches.
pub const RECORD_BYTES: usize = 32;

pub struct EventLog {
    buf: GrowableBuffer,
    stream: CUstream,
    len: usize,
}

impl EventLog {
    pub fn new(ctx: &Arc<CudaContext>, max_bytes: usize) -> Result<Self, DriverError> {
        let buf = GrowableBuffer::new(ctx, max_bytes)?;
        let mut stream: CUstream = null_mut();
        unsafe { sys::cuStreamCreate(&mut stream, sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32).result()? };
        Ok(Self { buf, stream, len: 0 })
    }

    /// Reserves `count` zeroed records and returns the index of the first.
    pub fn reserve_records(&mut self, count: usize) -> Result<usize, DriverError> {
        let first = self.len;
        let old_committed = self.buf.committed();
        let needed = (self.len + count) * RECORD_BYTES;
        if needed > old_committed {
            self.buf.grow(needed)?;
            let fresh = self.buf.committed() - old_committed;
            unsafe {
                sys::cuMemsetD8Async(self.buf.base() + old_committed as u64, 0, fresh, self.stream).result()?; // EXPECT: vmm_lifecycle
            }
        }
        self.len += count;
        Ok(first)
    }

    pub fn committed_bytes(&self) -> usize {
        self.buf.committed()
    }

    pub fn flush(&self) -> Result<(), DriverError> {
        unsafe { sys::cuStreamSynchronize(self.stream).result() }
    }
}

impl Drop for EventLog {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuStreamSynchronize(self.stream);
            let _ = sys::cuStreamDestroy_v2(self.stream);
        }
    }
}

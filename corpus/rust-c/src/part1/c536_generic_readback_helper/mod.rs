//! case: a generic metrics collector reads GPU counters through a `Readback` trait; the cudarc implementation enqueues the copy into a plain slice of pinned memory in `start` and the collector calls `finish` (a stream synchronize in a helper sub-module) before reading
//! expect: none
mod sync;

use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaSlice, CudaStream, DriverError, PinnedHostSlice};

pub trait Readback {
    type Item: Copy;
    /// Enqueues the transfer of the source into the host buffer.
    fn start(&mut self) -> Result<(), DriverError>;
    /// Blocks until the transfer started by `start` is complete.
    fn finish(&self) -> Result<(), DriverError>;
    fn host(&self) -> &[Self::Item];
}

pub struct CounterReadback {
    stream: Arc<CudaStream>,
    counters: CudaSlice<u64>,
    host: PinnedHostSlice<u64>,
    host_ptr: *mut u64,
}

impl CounterReadback {
    pub fn new(ctx: &Arc<CudaContext>, n: usize) -> Result<Self, DriverError> {
        let stream = ctx.new_stream()?;
        let counters = stream.alloc_zeros::<u64>(n)?;
        let mut host = unsafe { ctx.alloc_pinned_with_flags::<u64>(n, 0)? };
        let host_ptr = host.as_mut_ptr()?;
        Ok(Self { stream, counters, host, host_ptr })
    }
}

impl Readback for CounterReadback {
    type Item = u64;

    fn start(&mut self) -> Result<(), DriverError> {
        let dst = unsafe { std::slice::from_raw_parts_mut(self.host_ptr, self.host.len()) };
        self.stream.memcpy_dtoh(&self.counters, dst)
    }

    fn finish(&self) -> Result<(), DriverError> {
        sync::wait_idle(&self.stream)
    }

    fn host(&self) -> &[u64] {
        unsafe { std::slice::from_raw_parts(self.host_ptr, self.host.len()) }
    }
}

/// Collects one sample from every source: all transfers first, then one wait each.
pub fn collect<R: Readback<Item = u64>>(sources: &mut [R]) -> Result<Vec<u64>, DriverError> {
    sources.iter_mut().try_for_each(|s| s.start())?;
    sources.iter().try_for_each(|s| s.finish())?;
    Ok(sources.iter().map(|s| s.host().iter().sum()).collect())
}

//! case: a telemetry reader copies into `pinned.as_mut_slice()?` (a plain slice, no event recorded) and later trusts `as_slice` to wait
//! expect: missing_sync=1
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaSlice, CudaStream, PinnedHostSlice};

type Res<T> = Result<T, Box<dyn std::error::Error>>;

pub struct Telemetry {
    compute: Arc<CudaStream>,
    copy: Arc<CudaStream>,
    counters: CudaSlice<u64>,
    host: PinnedHostSlice<u64>,
}

impl Telemetry {
    pub fn new(n: usize) -> Res<Self> {
        let ctx = CudaContext::new(0)?;
        let compute = ctx.new_stream()?;
        let copy = ctx.new_stream()?;
        let counters = compute.alloc_zeros::<u64>(n)?;
        let host = unsafe { ctx.alloc_pinned_with_flags::<u64>(n, 0)? };
        Ok(Self { compute, copy, counters, host })
    }

    /// Starts the readback; `collect` finishes it.
    fn start(&mut self) -> Res<()> {
        self.copy.join(&self.compute)?;
        // The destination is a `&mut [u64]` borrowed out of the pinned buffer: cudarc's
        // `HostSlice for [T]` records nothing, so the buffer's own event stays unrecorded.
        let dst: &mut [u64] = self.host.as_mut_slice()?;
        self.copy.memcpy_dtoh(&self.counters, dst)?;
        Ok(())
    }

    fn collect(&self) -> Res<u64> {
        // `as_slice` synchronizes the buffer's event, which the copy above never recorded.
        let total = self.host.as_slice()?.iter().sum(); // EXPECT: missing_sync
        Ok(total)
    }

    pub fn poll(&mut self) -> Res<u64> {
        self.start()?;
        self.collect()
    }
}

//! case: cudarc with two streams, but the readback is given `pinned.as_mut_slice()?` (a plain &mut [T]), so no event is recorded on the PinnedHostSlice and the later as_slice() read does not wait
//! expect: missing_sync=1
use std::error::Error;
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaSlice, CudaStream, PinnedHostSlice};

pub struct Telemetry {
    ctx: Arc<CudaContext>,
    copy_stream: Arc<CudaStream>,
    host: PinnedHostSlice<u32>,
}

impl Telemetry {
    pub fn new(len: usize) -> Result<Self, Box<dyn Error>> {
        let ctx = CudaContext::new(0)?;
        let copy_stream = ctx.new_stream()?;
        // SAFETY: filled by the readback before reading. Flags 0: cached host memory.
        let host = unsafe { ctx.alloc_pinned_with_flags::<u32>(len, 0)? };
        Ok(Self { ctx, copy_stream, host })
    }

    pub fn counters(&mut self, dev: &CudaSlice<u32>) -> Result<u64, Box<dyn Error>> {
        let dst: &mut [u32] = self.host.as_mut_slice()?;
        self.copy_stream.memcpy_dtoh(dev, dst)?;
        let total = self.host.as_slice()?.iter().map(|&c| c as u64).sum(); // EXPECT: missing_sync
        Ok(total)
    }

    /// Near-miss: the same copy given the PinnedHostSlice itself is tracked by its event.
    pub fn counters_tracked(&mut self, dev: &CudaSlice<u32>) -> Result<u64, Box<dyn Error>> {
        self.copy_stream.memcpy_dtoh(dev, &mut self.host)?;
        Ok(self.host.as_slice()?.iter().map(|&c| c as u64).sum())
    }

    pub fn context(&self) -> &Arc<CudaContext> {
        &self.ctx
    }
}

//! case: a loss readback helper that copies device losses into cudarc's alloc_pinned buffer (write-combined in 0.19.10) and sums them on the host after synchronizing
//! expect: write_combined_host_read=1
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaSlice, CudaStream, DriverError, PinnedHostSlice};

pub struct LossReadback {
    stream: Arc<CudaStream>,
    host: PinnedHostSlice<f32>,
}

impl LossReadback {
    pub fn new(ctx: &Arc<CudaContext>, batch: usize) -> Result<Self, DriverError> {
        let host = unsafe { ctx.alloc_pinned::<f32>(batch) }?;
        Ok(LossReadback { stream: ctx.default_stream(), host })
    }

    /// Mean loss of the batch.
    pub fn mean(&mut self, losses: &CudaSlice<f32>) -> Result<f32, DriverError> {
        self.stream.memcpy_dtoh(losses, &mut self.host)?;
        self.stream.synchronize()?;
        let total: f32 = self.host.as_slice()?.iter().sum(); // EXPECT: write_combined_host_read
        Ok(total / self.host.len() as f32)
    }
}

pub fn run() -> Result<(), DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let losses = stream.alloc_zeros::<f32>(512)?;
    let mut rb = LossReadback::new(&ctx, 512)?;
    for epoch in 0..3 {
        let m = rb.mean(&losses)?;
        println!("epoch {epoch}: loss {m}");
    }
    Ok(())
}

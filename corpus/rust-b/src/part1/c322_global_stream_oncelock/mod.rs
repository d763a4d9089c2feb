//! case: a metrics module reads a pinned readback enqueued on a process-wide `OnceLock` stream, waiting only when the caller asked for exact numbers
//! expect: missing_sync=1
mod gpu;

use cuda_lint_runtime::{DeviceBuffer, PinnedBuffer, Result};

pub struct Metrics {
    host: PinnedBuffer<f32>,
}

impl Metrics {
    pub fn new(n: usize) -> Result<Self> {
        Ok(Self { host: gpu::gpu()?.ctx.alloc_pinned(n)? })
    }

    pub fn loss(&mut self, d_loss: &DeviceBuffer<f32>, exact: bool) -> Result<f32> {
        let g = gpu::gpu()?;
        // SAFETY: `host` is owned by `self`.
        unsafe { g.stream.copy_dtoh_async(&mut self.host, d_loss)? };
        if exact {
            g.stream.synchronize()?;
        }
        let mean = self.host.iter().sum::<f32>() / self.host.len() as f32; // EXPECT: missing_sync
        Ok(mean)
    }
}

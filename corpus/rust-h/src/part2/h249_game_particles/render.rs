use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaSlice, CudaStream, PinnedHostSlice};

use super::GameResult;

pub struct RenderReadback {
    stream: Arc<CudaStream>,
    host: PinnedHostSlice<f32>,
}

impl RenderReadback {
    pub fn new(ctx: &Arc<CudaContext>, particles: usize) -> GameResult<Self> {
        Ok(Self {
            stream: ctx.new_stream()?,
            host: unsafe { ctx.alloc_pinned_with_flags::<f32>(particles * 3, 0)? },
        })
    }

    pub fn readback(&mut self, positions: &CudaSlice<f32>) -> GameResult<Vec<[f32; 3]>> {
        self.stream.memcpy_dtoh(positions, &mut self.host)?; // EXPECT: missing_sync
        self.stream.synchronize()?;
        Ok(self.host.as_slice()?.chunks_exact(3).map(|p| [p[0], p[1], p[2]]).collect())
    }
}

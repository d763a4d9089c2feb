use std::sync::Arc;

use cudarc::driver::{CudaContext, DriverError, PinnedHostSlice};

/// Page-locked host buffers for one request.
pub struct IoBuffers {
    pub input: PinnedHostSlice<f32>,
    pub output: PinnedHostSlice<f32>,
}

impl IoBuffers {
    pub fn new(ctx: &Arc<CudaContext>, inputs: usize, outputs: usize) -> Result<Self, DriverError> {
        // SAFETY: both are fully written before they are read.
        unsafe { Ok(Self { input: ctx.alloc_pinned::<f32>(inputs)?, output: ctx.alloc_pinned::<f32>(outputs)? }) }
    }
}

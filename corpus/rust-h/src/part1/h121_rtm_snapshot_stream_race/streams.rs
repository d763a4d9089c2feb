use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaStream, DriverError};

/// One stream for kernels, one for transfers, so snapshots overlap propagation.
pub struct StreamPair {
    pub compute: Arc<CudaStream>,
    pub copy: Arc<CudaStream>,
}

impl StreamPair {
    pub fn new(ctx: &Arc<CudaContext>) -> Result<Self, DriverError> {
        // We order the two streams ourselves; skip cudarc's per-buffer events.
        unsafe { ctx.disable_event_tracking() };
        Ok(Self { compute: ctx.new_stream()?, copy: ctx.new_stream()? })
    }
}

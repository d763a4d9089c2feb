//! case: gradient exporter of a data-parallel trainer: the backward kernel writes the gradient shard on the compute stream and the export copies it on a separate io stream with no explicit wait; with event tracking on (the default) and two streams, cudarc makes the io stream wait on the shard's write event and `as_slice` on the pinned copy waits for the copy
//! expect: none

mod io;
mod reduce;

use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, DriverError, PinnedHostSlice};

pub struct ShardExporter {
    compute: Arc<CudaStream>,
    io: Arc<CudaStream>,
    backward: CudaFunction,
    grads: CudaSlice<f32>,
    staging: PinnedHostSlice<f32>,
    exported: Vec<io::ShardStats>,
}

impl ShardExporter {
    pub fn new(ctx: &Arc<CudaContext>, shard_len: usize) -> Result<Self, Box<dyn std::error::Error>> {
        let compute = ctx.new_stream()?;
        let io = ctx.new_stream()?;
        let backward = reduce::load(ctx)?;
        Ok(Self {
            grads: compute.alloc_zeros::<f32>(shard_len)?,
            staging: unsafe { ctx.alloc_pinned_with_flags::<f32>(shard_len, 0)? },
            compute,
            io,
            backward,
            exported: Vec::new(),
        })
    }

    pub fn step(&mut self, activations: &CudaSlice<f32>, upstream: &CudaSlice<f32>) -> Result<&io::ShardStats, DriverError> {
        reduce::backward(&self.compute, &self.backward, activations, upstream, &mut self.grads)?;
        self.io.memcpy_dtoh(&self.grads, &mut self.staging)?;
        let stats = io::summarize(self.staging.as_slice()?);
        self.exported.push(stats);
        Ok(self.exported.last().expect("just pushed"))
    }
}

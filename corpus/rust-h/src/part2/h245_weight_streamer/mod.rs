//! case: layer-weight streamer of an inference engine on the runtime layer's VMM types: one physical allocation mapped twice, a loader view written by the dequantize kernel on the load stream and a compute view read by the matvec kernel on the compute stream, with no event recorded and waited from the load stream to the compute stream (only the opposite direction, for the next layer's overwrite, is ordered)
//! expect: unfenced_vmm_alias=1

mod compute;
mod load;

use cuda_lint_runtime::{Context, DeviceBuffer, Event, Kernel, LaunchConfig, Mapping, PhysicalAllocation, Result, Stream, VirtualRange};

pub struct WeightStreamer {
    load_stream: Stream,
    compute_stream: Stream,
    dequant: Kernel,
    matvec: Kernel,
    compute_done: Event,
    _physical: PhysicalAllocation,
    load_view: Mapping,
    compute_view: Mapping,
    rows: usize,
    cols: usize,
}

impl WeightStreamer {
    pub fn new(ctx: &Context, rows: usize, cols: usize) -> Result<Self> {
        let gran = ctx.vmm_granularity()?;
        let bytes = (rows * cols * 4).div_ceil(gran) * gran;
        let physical = PhysicalAllocation::new(ctx, bytes)?;
        let load_view = VirtualRange::reserve(ctx, bytes)?.map(&physical, 0)?;
        let compute_view = VirtualRange::reserve(ctx, bytes)?.map(&physical, 0)?;
        Ok(Self {
            load_stream: ctx.new_stream()?,
            compute_stream: ctx.new_stream()?,
            dequant: load::kernel(ctx)?,
            matvec: compute::kernel(ctx)?,
            compute_done: ctx.new_event()?,
            _physical: physical,
            load_view,
            compute_view,
            rows,
            cols,
        })
    }

    /// Streams in the next layer's int8 weights and applies the layer to `x`.
    pub fn layer(&mut self, q_weights: &DeviceBuffer<i8>, scale: f32, x: &DeviceBuffer<f32>, y: &DeviceBuffer<f32>) -> Result<()> {
        let n = (self.rows * self.cols) as u32;
        // the previous layer's matvec must be done reading before the weights are overwritten
        self.load_stream.wait_event(&self.compute_done)?;
        unsafe { self.load_stream.launch(&self.dequant, LaunchConfig::for_num_elems(n), &[q_weights, &self.load_view, &scale, &n])? };
        let (r, c) = (self.rows as u32, self.cols as u32);
        unsafe { self.compute_stream.launch(&self.matvec, LaunchConfig::for_num_elems(r), &[&self.compute_view, x, y, &r, &c])? }; // EXPECT: unfenced_vmm_alias
        self.compute_stream.record_event(&self.compute_done)?;
        Ok(())
    }

    pub fn finish(&self) -> Result<()> {
        self.load_stream.synchronize()?;
        self.compute_stream.synchronize()
    }
}

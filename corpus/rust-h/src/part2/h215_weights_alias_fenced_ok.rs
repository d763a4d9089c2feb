//! case: hot-swappable model weights mapped twice with the runtime layer's VMM types (an update view and a serving view of one physical allocation); the kernel that rescales through one view and reads through the other executes `fence.proxy.alias` between the two, and the output is read after `stream.synchronize()`
//! expect: none

use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, Mapping, PhysicalAllocation, PinnedBuffer, Result, Stream, VirtualRange};

const RESCALE_SRC: &str = r#"
extern "C" __global__ void rescale_and_probe(float* update_view, const float* serve_view,
                                             float* probe, float scale, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) update_view[i] *= scale;
    asm volatile("fence.proxy.alias;" ::: "memory");
    if (i < n) probe[i] = serve_view[i];
}
"#;

pub struct HotWeights {
    stream: Stream,
    rescale: Kernel,
    _physical: PhysicalAllocation,
    update_view: Mapping,
    serve_view: Mapping,
    probe: DeviceBuffer<f32>,
    probe_host: PinnedBuffer<f32>,
    n: usize,
}

impl HotWeights {
    pub fn new(ctx: &Context, n_weights: usize) -> Result<Self> {
        let gran = ctx.vmm_granularity()?;
        let bytes = (n_weights * 4).div_ceil(gran) * gran;
        let physical = PhysicalAllocation::new(ctx, bytes)?;
        let update_view = VirtualRange::reserve(ctx, bytes)?.map(&physical, 0)?;
        let serve_view = VirtualRange::reserve(ctx, bytes)?.map(&physical, 0)?;
        debug_assert!(update_view.aliases(&serve_view));
        Ok(Self {
            stream: ctx.new_stream()?,
            rescale: ctx.load_cuda(RESCALE_SRC)?.function("rescale_and_probe")?,
            _physical: physical,
            update_view,
            serve_view,
            probe: ctx.alloc_zeroed::<f32>(n_weights)?,
            probe_host: ctx.alloc_pinned::<f32>(n_weights)?,
            n: n_weights,
        })
    }

    pub fn serving_ptr(&self) -> u64 {
        self.serve_view.device_ptr().as_raw()
    }

    /// Applies a quantization scale in place and returns what the serving view now sees.
    pub fn rescale(&mut self, scale: f32) -> Result<f32> {
        let n = self.n as u32;
        unsafe {
            self.stream.launch(
                &self.rescale,
                LaunchConfig::for_num_elems(n),
                &[&self.update_view, &self.serve_view, &self.probe, &scale, &n],
            )?
        };
        unsafe { self.stream.copy_dtoh_async(&mut self.probe_host, &self.probe)? };
        self.stream.synchronize()?;
        let checksum = self.probe_host.iter().fold(0.0f32, |acc, &w| acc + w.abs());
        Ok(checksum)
    }
}

//! case: telemetry aggregation with a physical buffer exposed through a writer view and a reader view (runtime crate VMM): the one kernel that uses both views writes through one, executes fence.proxy.alias, then reads through the other (near-miss: the fence is there)
//! expect: none

use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, Mapping, PhysicalAllocation, Result, Stream, VirtualRange};

const ROLLUP_SRC: &str = r#"
extern "C" __global__ void rollup(float* writer_view, const float* reader_view, const float* samples,
                                  unsigned n, float decay, float* smoothed) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    writer_view[i] = writer_view[i] * decay + samples[i] * (1.0f - decay);
    asm volatile("fence.proxy.alias;" ::: "memory");
    smoothed[i] = reader_view[i];
}
"#;

pub struct DualView {
    pub writer: Mapping,
    pub reader: Mapping,
    physical: PhysicalAllocation,
}

impl DualView {
    pub fn new(ctx: &Context, elems: usize) -> Result<Self> {
        let gran = ctx.vmm_granularity()?;
        let size = (elems * 4).div_ceil(gran) * gran;
        let physical = PhysicalAllocation::new(ctx, size)?;
        let writer = VirtualRange::reserve(ctx, size)?.map(&physical, 0)?;
        let reader = VirtualRange::reserve(ctx, size)?.map(&physical, 0)?;
        Ok(DualView { writer, reader, physical })
    }
}

pub struct Rollup {
    stream: Stream,
    kernel: Kernel,
    decay: f32,
}

impl Rollup {
    pub fn new(ctx: &Context, decay: f32) -> Result<Self> {
        Ok(Rollup { stream: ctx.new_stream()?, kernel: ctx.load_cuda(ROLLUP_SRC)?.function("rollup")?, decay })
    }

    pub fn step(&self, views: &DualView, samples: &DeviceBuffer<f32>, smoothed: &mut DeviceBuffer<f32>) -> Result<()> {
        let n = samples.len().min(smoothed.len()).min(views.writer.size() / 4) as u32;
        unsafe {
            self.stream.launch(&self.kernel, LaunchConfig::for_num_elems(n), &[&views.writer, &views.reader, samples, &n, &self.decay, &*smoothed])?;
        }
        self.stream.synchronize()
    }
}

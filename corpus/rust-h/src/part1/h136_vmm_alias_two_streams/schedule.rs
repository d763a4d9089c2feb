use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, PinnedBuffer, Result, Stream};

use super::buffers::AliasedField;

const OCEAN_SRC: &str = r#"
extern "C" __global__ void advect_ssh(float* ssh, const float* u, int n, float dt) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i <= 0 || i >= n - 1) return;
    ssh[i] -= dt * 0.5f * (u[i + 1] - u[i - 1]);
}
extern "C" __global__ void ssh_stats(const float* ssh, int n, float* stats) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    atomicAdd(&stats[0], ssh[i]);
    atomicAdd(&stats[1], ssh[i] * ssh[i]);
}
"#;

pub struct DualStreamScheduler {
    producer: Stream,
    consumer: Stream,
    advect: Kernel,
    stats_fn: Kernel,
    field: AliasedField,
    velocity: DeviceBuffer<f32>,
    d_stats: DeviceBuffer<f32>,
}

impl DualStreamScheduler {
    pub fn new(ctx: &Context, field: AliasedField) -> Result<Self> {
        let module = ctx.load_cuda(OCEAN_SRC)?;
        Ok(Self {
            producer: ctx.new_stream()?,
            consumer: ctx.new_stream()?,
            advect: module.function("advect_ssh")?,
            stats_fn: module.function("ssh_stats")?,
            velocity: ctx.alloc_zeroed(field.cells)?,
            d_stats: ctx.alloc_zeroed(2)?,
            field,
        })
    }

    /// One advection step on the producer stream, diagnostics of its result on the consumer stream.
    pub fn step(&mut self, stats: &mut PinnedBuffer<f32>) -> Result<()> {
        let n = self.field.cells as i32;
        let cfg = LaunchConfig::for_num_elems(self.field.cells as u32);
        let dt = 0.1f32;
        unsafe {
            self.producer.launch(&self.advect, cfg, &[&self.field.writer, &self.velocity, &n, &dt])?;
        }
        self.consumer.memset_d32_async(&mut self.d_stats, 0)?;
        unsafe {
            self.consumer.launch(&self.stats_fn, cfg, &[&self.field.reader, &n, &mut self.d_stats])?; // EXPECT: unfenced_vmm_alias
            self.consumer.copy_dtoh_async(stats, &self.d_stats)?;
        }
        self.consumer.synchronize()?;
        self.producer.synchronize()?;
        Ok(())
    }
}

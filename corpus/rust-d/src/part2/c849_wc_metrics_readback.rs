//! case: a training-metrics reducer (runtime layer) allocates one pinned buffer with `write_combined: true` "because pinned transfers are faster with it" and uses it as the destination of the per-step metrics copy; after synchronizing, the host scans it for the mean and max: host reads of write-combined memory
//! expect: write_combined_host_read=1

use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, PinnedBuffer, PinnedFlags, Result, Stream};

const GRADNORM_SRC: &str = r#"
extern "C" __global__ void per_tensor_sq_norm(const float* grads, const unsigned int* offsets, unsigned int n_tensors, float* out) {
    unsigned int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n_tensors) return;
    float s = 0.0f;
    for (unsigned int i = offsets[t]; i < offsets[t + 1]; ++i) s += grads[i] * grads[i];
    out[t] = s;
}
"#;

pub struct StepMetrics {
    pub mean_sq_norm: f32,
    pub max_sq_norm: f32,
    pub worst_tensor: usize,
}

pub struct MetricsReducer {
    stream: Stream,
    kernel: Kernel,
    norms_dev: DeviceBuffer<f32>,
    norms_host: PinnedBuffer<f32>,
}

impl MetricsReducer {
    pub fn new(ctx: &Context, n_tensors: usize) -> Result<Self> {
        let flags = PinnedFlags { write_combined: true, ..PinnedFlags::default() };
        Ok(Self {
            stream: ctx.new_stream()?,
            kernel: ctx.load_cuda(GRADNORM_SRC)?.function("per_tensor_sq_norm")?,
            norms_dev: ctx.alloc(n_tensors)?,
            norms_host: ctx.alloc_pinned_with_flags(n_tensors, flags)?,
        })
    }

    pub fn step(&mut self, grads: &DeviceBuffer<f32>, offsets: &DeviceBuffer<u32>) -> Result<StepMetrics> {
        let n = self.norms_dev.len() as u32;
        unsafe {
            self.stream.launch(&self.kernel, LaunchConfig::for_num_elems(n), &[grads, offsets, &n, &self.norms_dev])?;
            self.stream.copy_dtoh_async(&mut self.norms_host, &self.norms_dev)?;
        }
        self.stream.synchronize()?;

        let (worst_tensor, max_sq_norm, total) = self.norms_host.iter().copied().enumerate().fold( // EXPECT: write_combined_host_read
            (0, f32::MIN, 0.0f32),
            |(wi, wv, sum), (i, v)| if v > wv { (i, v, sum + v) } else { (wi, wv, sum + v) },
        );
        let mean_sq_norm = total / n.max(1) as f32;
        Ok(StepMetrics { mean_sq_norm, max_sq_norm, worst_tensor })
    }
}

use cuda_lint_runtime::{
    Context, DeviceBuffer, Kernel, LaunchConfig, PinnedBuffer, PinnedFlags, Result, Stream,
};

use super::report::WindowReport;

const WINDOW_SRC: &str = r#"
extern "C" __global__ void window_sum(const float* events, float* sums, unsigned n, unsigned per_window) {
    unsigned w = blockIdx.x;
    float acc = 0.0f;
    for (unsigned i = threadIdx.x; i < per_window; i += blockDim.x) {
        unsigned idx = w * per_window + i;
        if (idx < n) acc += events[idx];
    }
    atomicAdd(&sums[w], acc);
}
"#;

pub struct WindowAggregator {
    ctx: Context,
    stream: Stream,
    kernel: Kernel,
    staging: PinnedBuffer<f32>,
    events_dev: DeviceBuffer<f32>,
    sums_dev: DeviceBuffer<f32>,
    sums_host: PinnedBuffer<f32>,
    windows: usize,
    staged: usize,
    seq: u64,
}

impl WindowAggregator {
    pub fn new(ctx: &Context, windows: usize, capacity: usize) -> Result<Self> {
        let module = ctx.load_cuda(WINDOW_SRC)?;
        let kernel = module.function("window_sum")?;
        let stream = ctx.new_stream()?;
        // Readback buffer: someone copied the flags from the upload path.
        let wc = PinnedFlags { portable: false, device_mapped: false, write_combined: true };
        let sums_host = ctx.alloc_pinned_with_flags::<f32>(windows, wc)?;
        Ok(Self {
            ctx: ctx.clone(),
            stream,
            kernel,
            staging: ctx.alloc_pinned::<f32>(capacity)?,
            events_dev: ctx.alloc::<f32>(capacity)?,
            sums_dev: ctx.alloc_zeroed::<f32>(windows)?,
            sums_host,
            windows,
            staged: 0,
            seq: 0,
        })
    }

    pub fn stream(&self) -> &Stream {
        &self.stream
    }

    pub fn stage(&mut self, batch: &[f32]) -> Result<()> {
        let n = batch.len().min(self.staging.len());
        self.staging[..n].copy_from_slice(&batch[..n]);
        self.staged = n;
        // SAFETY: `staging` is not written again before `tick` synchronizes the stream.
        unsafe { self.stream.copy_htod_async(&mut self.events_dev, &self.staging)? };
        Ok(())
    }

    pub fn flush(&mut self) -> Result<WindowReport> {
        self.stream.memset_d32_async(&mut self.sums_dev, 0)?;
        let n = self.staged as u32;
        let per_window = n.div_ceil(self.windows as u32).max(1);
        let cfg = LaunchConfig { grid: (self.windows as u32, 1, 1), block: (256, 1, 1), shared_mem_bytes: 0 };
        // SAFETY: argument list matches `window_sum(const float*, float*, unsigned, unsigned)`.
        unsafe {
            self.stream
                .launch(&self.kernel, cfg, &[&self.events_dev, &self.sums_dev, &n, &per_window])?
        };
        // SAFETY: the caller synchronizes before `sums_host` is reused.
        unsafe { self.stream.copy_dtoh_async(&mut self.sums_host, &self.sums_dev)? };
        self.seq += 1;
        let sums: Vec<f32> = self.sums_host.iter().copied().collect(); // EXPECT: missing_sync, write_combined_host_read
        Ok(WindowReport::from_sums(self.seq, &sums))
    }
}

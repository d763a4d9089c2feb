//! case: latency-histogram exporter for a monitoring daemon (runtime crate): per-interval bins are computed on the GPU and copied into a pinned buffer allocated write_combined: true, then read on the host to render Prometheus lines (synchronized correctly)
//! expect: write_combined_host_read=1

use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, PinnedBuffer, PinnedFlags, Result, Stream};
use std::fmt::Write as _;

const HIST_SRC: &str = r#"
extern "C" __global__ void bucketize(const float* latencies_ms, unsigned n, unsigned* bins, unsigned nbins) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float l = latencies_ms[i];
    unsigned b = l <= 0.0f ? 0u : min(nbins - 1, (unsigned)(log2f(l + 1.0f) * 4.0f));
    atomicAdd(&bins[b], 1u);
}
"#;

pub struct HistogramExporter {
    stream: Stream,
    bucketize: Kernel,
    d_bins: DeviceBuffer<u32>,
    nbins: usize,
}

impl HistogramExporter {
    pub fn new(ctx: &Context, nbins: usize) -> Result<Self> {
        let module = ctx.load_cuda(HIST_SRC)?;
        Ok(HistogramExporter {
            stream: ctx.new_stream()?,
            bucketize: module.function("bucketize")?,
            d_bins: ctx.alloc_zeroed::<u32>(nbins)?,
            nbins,
        })
    }

    /// Bins the interval's samples (already on the device) and renders them.
    pub fn export(&mut self, ctx: &Context, metric: &str, samples: &DeviceBuffer<f32>) -> Result<String> {
        // Transfer-only buffer, so ask for write-combining for faster DMA.
        let flags = PinnedFlags { write_combined: true, ..PinnedFlags::default() };
        let mut bins_host: PinnedBuffer<u32> = ctx.alloc_pinned_with_flags(self.nbins, flags)?;
        self.stream.memset_d32_async(&mut self.d_bins, 0)?;
        let n = samples.len() as u32;
        let nbins = self.nbins as u32;
        unsafe {
            self.stream.launch(&self.bucketize, LaunchConfig::for_num_elems(n), &[samples, &n, &self.d_bins, &nbins])?;
            self.stream.copy_dtoh_async(&mut bins_host, &self.d_bins)?;
        }
        self.stream.synchronize()?;

        let mut out = String::new();
        let mut cumulative = 0u64;
        for (b, &count) in bins_host.iter().enumerate() { // EXPECT: write_combined_host_read
            cumulative += count as u64;
            let le = 2f64.powf(b as f64 / 4.0) - 1.0;
            let _ = writeln!(out, "{metric}_bucket{{le=\"{le:.3}\"}} {cumulative}");
        }
        let _ = writeln!(out, "{metric}_count {cumulative}");
        Ok(out)
    }
}

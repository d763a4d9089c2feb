//! case: 256-bin luminance histogram engine on the runtime layer; `enqueue_readback` queues the bin copy into pinned memory and `run` computes the percentiles from the bins right away; the stream is synchronized only later in `finish`
//! expect: missing_sync=1

use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, PinnedBuffer, Result, Stream};

const HIST_SRC: &str = r#"
extern "C" __global__ void luma_hist(const unsigned char* rgb, unsigned* bins, unsigned n_px) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n_px) return;
    float y = 0.2126f * rgb[3*i] + 0.7152f * rgb[3*i+1] + 0.0722f * rgb[3*i+2];
    atomicAdd(&bins[min((unsigned)y, 255u)], 1u);
}
"#;

pub struct Percentiles {
    pub p5: u8,
    pub p50: u8,
    pub p95: u8,
}

pub struct HistogramEngine {
    stream: Stream,
    kernel: Kernel,
    dev_rgb: DeviceBuffer<u8>,
    dev_bins: DeviceBuffer<u32>,
    host_rgb: PinnedBuffer<u8>,
    host_bins: PinnedBuffer<u32>,
}

impl HistogramEngine {
    pub fn new(ctx: &Context, max_pixels: usize) -> Result<Self> {
        let module = ctx.load_cuda(HIST_SRC)?;
        Ok(Self {
            stream: ctx.new_stream()?,
            kernel: module.function("luma_hist")?,
            dev_rgb: ctx.alloc(max_pixels * 3)?,
            dev_bins: ctx.alloc_zeroed(256)?,
            host_rgb: ctx.alloc_pinned(max_pixels * 3)?,
            host_bins: ctx.alloc_pinned(256)?,
        })
    }

    fn upload_and_count(&mut self, rgb: &[u8]) -> Result<()> {
        self.host_rgb[..rgb.len()].copy_from_slice(rgb);
        self.stream.memset_d32_async(&mut self.dev_bins, 0)?;
        // SAFETY: host_rgb is not written again before `finish`.
        unsafe { self.stream.copy_htod_async(&mut self.dev_rgb, &self.host_rgb)? };
        let n_px = (rgb.len() / 3) as u32;
        unsafe {
            self.stream
                .launch(&self.kernel, LaunchConfig::for_num_elems(n_px), &[&self.dev_rgb, &self.dev_bins, &n_px])?
        };
        Ok(())
    }

    fn enqueue_readback(&mut self) -> Result<()> {
        unsafe { self.stream.copy_dtoh_async(&mut self.host_bins, &self.dev_bins) }
    }

    pub fn run(&mut self, rgb: &[u8]) -> Result<Percentiles> {
        self.upload_and_count(rgb)?;
        self.enqueue_readback()?;
        let total: u64 = self.host_bins.iter().map(|&b| b as u64).sum(); // EXPECT: missing_sync
        let pct = Percentiles {
            p5: percentile(&self.host_bins, total, 0.05),
            p50: percentile(&self.host_bins, total, 0.50),
            p95: percentile(&self.host_bins, total, 0.95),
        };
        self.finish()?;
        Ok(pct)
    }

    fn finish(&self) -> Result<()> {
        self.stream.synchronize()
    }
}

fn percentile(bins: &[u32], total: u64, q: f64) -> u8 {
    let target = (total as f64 * q) as u64;
    let mut acc = 0u64;
    for (i, &b) in bins.iter().enumerate() {
        acc += b as u64;
        if acc >= target {
            return i as u8;
        }
    }
    255
}

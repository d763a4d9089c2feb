//! case: request-latency histogram for a serving fleet kept in managed memory (runtime `ManagedBuffer`); the bins are cleared with a stream memset, filled by a kernel, and the host reads and then resets them only after `ctx.synchronize()`
//! expect: none

use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, ManagedBuffer, Result, Stream};

const BUCKETS: usize = 64;

const HISTO_SRC: &str = r#"
extern "C" __global__ void log2_buckets(const unsigned* latencies_us, unsigned* bins, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned v = latencies_us[i] | 1u;
    atomicAdd(&bins[31 - __clz(v)], 1u);
}
"#;

pub struct Percentiles {
    pub p50_us: u64,
    pub p99_us: u64,
    pub count: u64,
}

pub struct LatencyHistogram {
    ctx: Context,
    stream: Stream,
    kernel: Kernel,
    bins: ManagedBuffer<u32>,
}

impl LatencyHistogram {
    pub fn new(ctx: &Context) -> Result<Self> {
        Ok(Self {
            ctx: ctx.clone(),
            stream: ctx.new_stream()?,
            kernel: ctx.load_cuda(HISTO_SRC)?.function("log2_buckets")?,
            bins: ctx.alloc_managed::<u32>(BUCKETS)?,
        })
    }

    pub fn ingest(&mut self, latencies: &DeviceBuffer<u32>) -> Result<()> {
        let n = latencies.len() as u32;
        self.stream.memset_d32_async(&mut self.bins, 0)?;
        unsafe { self.stream.launch(&self.kernel, LaunchConfig::for_num_elems(n), &[latencies, &self.bins, &n])? };
        Ok(())
    }

    pub fn percentiles(&mut self) -> Result<Percentiles> {
        self.ctx.synchronize()?;
        let count: u64 = self.bins.iter().map(|&c| c as u64).sum();
        let bucket_at = |q: f64| -> u64 {
            let target = (count as f64 * q).ceil() as u64;
            let mut seen = 0u64;
            for (b, &c) in self.bins.iter().enumerate() {
                seen += c as u64;
                if seen >= target.max(1) {
                    return 1u64 << b;
                }
            }
            1u64 << (BUCKETS - 1)
        };
        let (p50_us, p99_us) = (bucket_at(0.5), bucket_at(0.99));
        self.bins.fill(0);
        Ok(Percentiles { p50_us, p99_us, count })
    }
}

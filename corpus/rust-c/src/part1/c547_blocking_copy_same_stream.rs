//! case: the entropy probe on the runtime layer: the 1 KiB histogram comes back with the blocking `Stream::copy_dtoh` on the kernel's own stream (the copy then a synchronize of that stream) into a stack array
//! expect: none
use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, Stream};

const HIST_SRC: &str = r#"
extern "C" __global__ void byte_hist(const unsigned char* data, unsigned int* bins, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&bins[data[i]], 1u);
}
"#;

pub struct EntropyProbe {
    stream: Stream,
    kernel: Kernel,
    bins: DeviceBuffer<u32>,
}

impl EntropyProbe {
    pub fn new(ctx: &Context) -> cuda_lint_runtime::Result<Self> {
        Ok(Self {
            stream: ctx.new_stream()?,
            kernel: ctx.load_cuda(HIST_SRC)?.function("byte_hist")?,
            bins: ctx.alloc_zeroed::<u32>(256)?,
        })
    }

    pub fn entropy(&mut self, data: &DeviceBuffer<u8>) -> cuda_lint_runtime::Result<f64> {
        let n = data.len() as i32;
        self.stream.memset_d32_async(&mut self.bins, 0)?;
        let cfg = LaunchConfig { grid: (120, 1, 1), block: (256, 1, 1), shared_mem_bytes: 0 };
        unsafe { self.stream.launch(&self.kernel, cfg, &[data, &self.bins, &n])? };
        let mut counts = [0u32; 256];
        self.stream.copy_dtoh(&mut counts, &self.bins)?;
        let total = counts.iter().map(|&c| c as f64).sum::<f64>().max(1.0);
        Ok(counts.iter().filter(|&&c| c > 0).map(|&c| c as f64 / total).map(|p| -p * p.log2()).sum())
    }
}

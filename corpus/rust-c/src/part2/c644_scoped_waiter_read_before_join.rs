//! case: a frame-timing helper hands the stream's synchronize to a scoped thread (to measure GPU time without blocking the render loop), but the main thread reads the downloaded pinned buffer before joining that thread
//! expect: missing_sync=1

use std::thread;
use std::time::{Duration, Instant};

use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, PinnedBuffer, Result, Stream};

const TONEMAP_SRC: &str = r#"
extern "C" __global__ void reinhard(const float* hdr, float* ldr, unsigned n, float exposure) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { float v = hdr[i] * exposure; ldr[i] = v / (1.0f + v); }
}
"#;

pub struct Tonemapper {
    stream: Stream,
    kernel: Kernel,
    ldr: DeviceBuffer<f32>,
    ldr_host: PinnedBuffer<f32>,
    pub last_gpu_time: Duration,
}

impl Tonemapper {
    pub fn new(ctx: &Context, pixels: usize) -> Result<Self> {
        Ok(Self {
            stream: ctx.new_stream()?,
            kernel: ctx.load_cuda(TONEMAP_SRC)?.function("reinhard")?,
            ldr: ctx.alloc(pixels)?,
            ldr_host: ctx.alloc_pinned(pixels)?,
            last_gpu_time: Duration::ZERO,
        })
    }

    /// Tonemaps `hdr` and returns the mean output luminance.
    pub fn run(&mut self, hdr: &DeviceBuffer<f32>, exposure: f32) -> Result<f32> {
        let n = hdr.len() as u32;
        let start = Instant::now();
        unsafe {
            self.stream.launch(&self.kernel, LaunchConfig::for_num_elems(n), &[hdr, &self.ldr, &n, &exposure])?;
            self.stream.copy_dtoh_async(&mut self.ldr_host, &self.ldr)?;
        }
        let stream = &self.stream;
        let host = &self.ldr_host;
        let (mean, waited) = thread::scope(|s| {
            let waiter = s.spawn(move || stream.synchronize().map(|()| start.elapsed()));
            let mean = host.iter().sum::<f32>() / n as f32; // EXPECT: missing_sync
            (mean, waiter.join().expect("waiter thread panicked"))
        });
        self.last_gpu_time = waited?;
        Ok(mean)
    }
}

//! case: a camera pipeline (runtime layer) builds a luma histogram in a ManagedBuffer, synchronizes, then launches the denoise kernel (which does not touch the histogram) and computes auto-exposure from the histogram on the host while the denoise kernel runs
//! expect: managed_concurrent_access=1

use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, ManagedBuffer, Result, Stream};

pub const CAMERA_CU: &str = r#"
extern "C" __global__ void luma_hist(const unsigned char* rgb, int n, unsigned int* hist) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned int y = (77u * rgb[3 * i] + 150u * rgb[3 * i + 1] + 29u * rgb[3 * i + 2]) >> 8;
    atomicAdd(&hist[y], 1u);
}
extern "C" __global__ void denoise3(const unsigned char* src, unsigned char* dst, int width, int height) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x <= 0 || y <= 0 || x >= width - 1 || y >= height - 1) return;
    for (int c = 0; c < 3; ++c) {
        int acc = 0;
        for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx) acc += src[3 * ((y + dy) * width + x + dx) + c];
        dst[3 * (y * width + x) + c] = (unsigned char)(acc / 9);
    }
}
"#;

pub struct CameraPipeline {
    stream: Stream,
    luma_hist: Kernel,
    denoise: Kernel,
    hist: ManagedBuffer<u32>,
    width: i32,
    height: i32,
}

impl CameraPipeline {
    pub fn new(ctx: &Context, width: i32, height: i32) -> Result<Self> {
        let module = ctx.load_cuda(CAMERA_CU)?;
        Ok(Self {
            stream: ctx.new_stream()?,
            luma_hist: module.function("luma_hist")?,
            denoise: module.function("denoise3")?,
            hist: ctx.alloc_managed::<u32>(256)?,
            width,
            height,
        })
    }

    /// Processes one frame; returns the exposure correction (EV) for the next one.
    pub fn process(&mut self, raw: &DeviceBuffer<u8>, out: &mut DeviceBuffer<u8>) -> Result<f32> {
        let n = self.width * self.height;
        self.stream.memset_d32_async(&mut self.hist, 0)?;
        unsafe { self.stream.launch(&self.luma_hist, LaunchConfig::for_num_elems(n as u32), &[raw, &n, &mut self.hist])? };
        self.stream.synchronize()?;

        let cfg = LaunchConfig { grid: ((self.width as u32).div_ceil(64), self.height as u32, 1), block: (64, 1, 1), shared_mem_bytes: 0 };
        unsafe { self.stream.launch(&self.denoise, cfg, &[raw, out, &self.width, &self.height])? };

        // Auto-exposure on the CPU, overlapped with the denoise kernel.
        let mean_luma = self.hist.iter().enumerate().map(|(y, &c)| y as f64 * c as f64).sum::<f64>() / n as f64; // EXPECT: managed_concurrent_access
        let ev = (118.0 / mean_luma.max(1.0)).log2() as f32;

        self.stream.synchronize()?;
        Ok(ev.clamp(-2.0, 2.0))
    }
}

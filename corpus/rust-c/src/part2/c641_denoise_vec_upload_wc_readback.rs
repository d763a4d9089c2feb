//! case: an image denoiser (runtime layer) uploads each frame straight from the decoder's `Vec<f32>` with `copy_htod_async` (pageable, megabytes per frame), and reads the result back into a pinned buffer it allocated write-combined "for faster transfers", then computes PSNR from it on the host
//! expect: pageable_async_copy=1, write_combined_host_read=1

use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, PinnedBuffer, PinnedFlags, Result, Stream};

const BOX_SRC: &str = r#"
extern "C" __global__ void box3(const float* src, float* dst, unsigned w, unsigned h) {
    unsigned x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x >= w || y >= h) return;
    float acc = 0.0f; int cnt = 0;
    for (int dy = -1; dy <= 1; ++dy) for (int dx = -1; dx <= 1; ++dx) {
        int xx = (int)x + dx, yy = (int)y + dy;
        if (xx >= 0 && yy >= 0 && xx < (int)w && yy < (int)h) { acc += src[yy * w + xx]; ++cnt; }
    }
    dst[y * w + x] = acc / cnt;
}
"#;

pub struct Frame {
    pub width: usize,
    pub height: usize,
    pub pixels: Vec<f32>,
}

pub struct Denoiser {
    stream: Stream,
    kernel: Kernel,
    src: DeviceBuffer<f32>,
    dst: DeviceBuffer<f32>,
    readback: PinnedBuffer<f32>,
}

impl Denoiser {
    pub fn new(ctx: &Context, width: usize, height: usize) -> Result<Self> {
        let n = width * height;
        let wc = PinnedFlags { write_combined: true, ..PinnedFlags::default() };
        Ok(Self {
            stream: ctx.new_stream()?,
            kernel: ctx.load_cuda(BOX_SRC)?.function("box3")?,
            src: ctx.alloc(n)?,
            dst: ctx.alloc(n)?,
            readback: ctx.alloc_pinned_with_flags(n, wc)?,
        })
    }

    /// Denoises `frame` and returns the PSNR of the result against the noisy input.
    pub fn process(&mut self, frame: &Frame) -> Result<f64> {
        let (w, h) = (frame.width as u32, frame.height as u32);
        unsafe { self.stream.copy_htod_async(&mut self.src, &frame.pixels)? }; // EXPECT: pageable_async_copy
        let cfg = LaunchConfig { grid: (w.div_ceil(128), h, 1), block: (128, 1, 1), shared_mem_bytes: 0 };
        unsafe { self.stream.launch(&self.kernel, cfg, &[&self.src, &self.dst, &w, &h])? };
        unsafe { self.stream.copy_dtoh_async(&mut self.readback, &self.dst)? };
        self.stream.synchronize()?;

        let mse = self.readback.iter().zip(&frame.pixels).map(|(&a, &b)| ((a - b) as f64).powi(2)).sum::<f64>() // EXPECT: write_combined_host_read
            / frame.pixels.len() as f64;
        Ok(if mse == 0.0 { f64::INFINITY } else { 10.0 * (1.0 / mse).log10() })
    }
}

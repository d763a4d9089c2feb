use cuda_lint_runtime::{Context, DeviceBuffer, Event, Kernel, LaunchConfig, PinnedBuffer, Result, Stream};

use super::stage::Stage;

const BILATERAL_SRC: &str = r#"
extern "C" __global__ void bilateral(const float* in, float* out, int w, int h, float sigma_s, float sigma_r) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x >= w || y >= h) return;
    float c = in[y * w + x], acc = 0.f, norm = 0.f;
    for (int dy = -3; dy <= 3; ++dy) for (int dx = -3; dx <= 3; ++dx) {
        int xx = min(max(x + dx, 0), w - 1), yy = min(max(y + dy, 0), h - 1);
        float v = in[yy * w + xx];
        float wgt = __expf(-(dx*dx + dy*dy) / (2.f * sigma_s * sigma_s) - (v - c) * (v - c) / (2.f * sigma_r * sigma_r));
        acc += wgt * v; norm += wgt;
    }
    out[y * w + x] = acc / norm;
}
"#;

pub struct BilateralStage {
    stream: Stream,
    done: Event,
    kernel: Kernel,
    w: usize,
    h: usize,
    sigma_s: f32,
    sigma_r: f32,
    host_in: PinnedBuffer<f32>,
    host_out: PinnedBuffer<f32>,
    dev_in: DeviceBuffer<f32>,
    dev_out: DeviceBuffer<f32>,
}

impl BilateralStage {
    pub fn new(ctx: &Context, w: usize, h: usize, sigma_s: f32, sigma_r: f32) -> Result<Self> {
        Ok(Self {
            stream: ctx.new_stream()?,
            done: ctx.new_event()?,
            kernel: ctx.load_cuda(BILATERAL_SRC)?.function("bilateral")?,
            w,
            h,
            sigma_s,
            sigma_r,
            host_in: ctx.alloc_pinned(w * h)?,
            host_out: ctx.alloc_pinned(w * h)?,
            dev_in: ctx.alloc(w * h)?,
            dev_out: ctx.alloc(w * h)?,
        })
    }
}

impl Stage for BilateralStage {
    fn submit(&mut self, input: &[f32]) -> Result<()> {
        // The previous submit was waited for by run_stage before we got here.
        self.host_in.copy_from_slice(input);
        unsafe { self.stream.copy_htod_async(&mut self.dev_in, &self.host_in)? };
        let (w, h) = (self.w as i32, self.h as i32);
        let cfg = LaunchConfig { grid: ((w as u32).div_ceil(32), h as u32, 1), block: (32, 1, 1), shared_mem_bytes: 0 };
        unsafe { self.stream.launch(&self.kernel, cfg, &[&self.dev_in, &self.dev_out, &w, &h, &self.sigma_s, &self.sigma_r])? };
        unsafe { self.stream.copy_dtoh_async(&mut self.host_out, &self.dev_out)? };
        self.stream.record_event(&self.done)
    }

    fn wait(&self) -> Result<()> {
        self.done.synchronize()
    }

    fn output(&self) -> &[f32] {
        &self.host_out
    }
}

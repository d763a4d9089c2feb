//! case: interactive SDF ray-marcher on the runtime layer: after enqueueing the frame kernel and its readback into pinned memory, the UI loop polls stream.query() (pumping UI events) until it reports completion, and only then blits the frame (near-miss for missing_sync: completion established by polling)
//! expect: none

use std::time::Duration;

use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, PinnedBuffer, Result, Stream};

const MARCH_SRC: &str = r#"
__device__ float sdf(float3 p) { return sqrtf(p.x*p.x + p.y*p.y + p.z*p.z) - 1.f; }
extern "C" __global__ void march(unsigned* rgba, int w, int h, float t) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x >= w || y >= h) return;
    float3 o = make_float3(__sinf(t) * 3.f, 0.f, __cosf(t) * 3.f);
    float3 d = make_float3((x - w / 2) / (float)h, (y - h / 2) / (float)h, -1.f);
    float s = 0.f;
    for (int i = 0; i < 64; ++i) { float3 p = make_float3(o.x + d.x * s, o.y + d.y * s, o.z + d.z * s); float dist = sdf(p); if (dist < 1e-3f) break; s += dist; }
    unsigned c = (unsigned)fminf(255.f, 255.f / (1.f + s));
    rgba[y * w + x] = 0xff000000u | (c << 16) | (c << 8) | c;
}
"#;

pub trait Ui {
    fn pump_events(&mut self) -> bool;
    fn blit(&mut self, rgba: &[u32], w: usize, h: usize);
}

pub struct Renderer {
    stream: Stream,
    march: Kernel,
    w: usize,
    h: usize,
    dev_frame: DeviceBuffer<u32>,
    host_frame: PinnedBuffer<u32>,
}

impl Renderer {
    pub fn new(ctx: &Context, w: usize, h: usize) -> Result<Self> {
        Ok(Self {
            stream: ctx.new_stream()?,
            march: ctx.load_cuda(MARCH_SRC)?.function("march")?,
            w,
            h,
            dev_frame: ctx.alloc(w * h)?,
            host_frame: ctx.alloc_pinned(w * h)?,
        })
    }

    pub fn frame<U: Ui>(&mut self, ui: &mut U, t: f32) -> Result<bool> {
        let (w, h) = (self.w as i32, self.h as i32);
        let cfg = LaunchConfig { grid: ((w as u32).div_ceil(64), h as u32, 1), block: (64, 1, 1), shared_mem_bytes: 0 };
        unsafe { self.stream.launch(&self.march, cfg, &[&self.dev_frame, &w, &h, &t])? };
        unsafe { self.stream.copy_dtoh_async(&mut self.host_frame, &self.dev_frame)? };

        let mut keep_running = true;
        while !self.stream.query()? {
            keep_running &= ui.pump_events();
            std::thread::sleep(Duration::from_micros(200));
        }
        ui.blit(&self.host_frame, self.w, self.h);
        Ok(keep_running)
    }
}

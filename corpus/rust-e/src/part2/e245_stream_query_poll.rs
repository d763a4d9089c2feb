//! case: near-miss of a read before sync: an interactive viewer keeps its UI responsive by polling `Stream::query` (pumping UI events meanwhile) until the stream reports all work done, and only then reads the pinned tile
//! expect: none

use std::time::Duration;

use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, PinnedBuffer, Result, Stream};

const MANDEL_SRC: &str = r#"
extern "C" __global__ void mandel_tile(unsigned short* iters, float x0, float y0, float step, int w, int h, int max_it) {
    int px = blockIdx.x * blockDim.x + threadIdx.x;
    if (px >= w * h) return;
    float cx = x0 + (px % w) * step, cy = y0 + (px / w) * step;
    float zx = 0.f, zy = 0.f;
    int it = 0;
    while (zx * zx + zy * zy < 4.f && it < max_it) { float t = zx * zx - zy * zy + cx; zy = 2.f * zx * zy + cy; zx = t; ++it; }
    iters[px] = (unsigned short)it;
}
"#;

pub trait UiPump {
    fn pump(&mut self) -> bool;
}

pub struct TileRenderer {
    stream: Stream,
    kernel: Kernel,
    dev: DeviceBuffer<u16>,
    host: PinnedBuffer<u16>,
    w: i32,
    h: i32,
}

impl TileRenderer {
    pub fn new(ctx: &Context, w: i32, h: i32) -> Result<Self> {
        let px = (w * h) as usize;
        Ok(Self { stream: ctx.new_stream()?, kernel: ctx.load_cuda(MANDEL_SRC)?.function("mandel_tile")?, dev: ctx.alloc(px)?, host: ctx.alloc_pinned(px)?, w, h })
    }

    /// Renders a tile; returns `None` if the user closed the window meanwhile.
    pub fn render(&mut self, ui: &mut dyn UiPump, x0: f32, y0: f32, step: f32, max_it: i32) -> Result<Option<u32>> {
        let n = (self.w * self.h) as u32;
        unsafe {
            self.stream.launch(&self.kernel, LaunchConfig::for_num_elems(n), &[&self.dev, &x0, &y0, &step, &self.w, &self.h, &max_it])?;
            self.stream.copy_dtoh_async(&mut self.host, &self.dev)?;
        }
        let mut open = true;
        while !self.stream.query()? {
            open &= ui.pump();
            std::thread::sleep(Duration::from_millis(1));
        }
        if !open {
            return Ok(None);
        }
        let escaped = self.host.iter().filter(|&&it| (it as i32) < max_it).count() as u32;
        Ok(Some(escaped))
    }
}

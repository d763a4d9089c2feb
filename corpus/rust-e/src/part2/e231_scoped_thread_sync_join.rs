//! case: near-miss: while the GPU renders, a scoped helper thread waits on the stream (and times it) and the main thread prepares the next frame's camera data; the pinned image is read only after the helper has been joined
//! expect: none

use std::thread;
use std::time::{Duration, Instant};

use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, PinnedBuffer, Result, Stream};

const SHADE_SRC: &str = r#"
extern "C" __global__ void shade(const float* depth, unsigned int* rgba, float near_plane, float far_plane, unsigned int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float t = (depth[i] - near_plane) / (far_plane - near_plane);
        unsigned int g = (unsigned int)(255.f * (1.f - fminf(fmaxf(t, 0.f), 1.f)));
        rgba[i] = 0xFF000000u | (g << 16) | (g << 8) | g;
    }
}
"#;

#[derive(Clone, Copy, Debug)]
pub struct Camera {
    pub near: f32,
    pub far: f32,
}

pub struct Renderer {
    stream: Stream,
    shade: Kernel,
    rgba: DeviceBuffer<u32>,
    image: PinnedBuffer<u32>,
}

impl Renderer {
    pub fn new(ctx: &Context, pixels: usize) -> Result<Self> {
        Ok(Self {
            stream: ctx.new_stream()?,
            shade: ctx.load_cuda(SHADE_SRC)?.function("shade")?,
            rgba: ctx.alloc(pixels)?,
            image: ctx.alloc_pinned(pixels)?,
        })
    }

    /// Renders one frame; returns the mean gray level, the GPU time and the next camera.
    pub fn frame(&mut self, depth: &DeviceBuffer<f32>, cam: Camera, plan_next: impl FnOnce(Camera) -> Camera + Send) -> Result<(f64, Duration, Camera)> {
        let n = depth.len() as u32;
        unsafe {
            self.stream.launch(&self.shade, LaunchConfig::for_num_elems(n), &[depth, &self.rgba, &cam.near, &cam.far, &n])?;
            self.stream.copy_dtoh_async(&mut self.image, &self.rgba)?;
        }

        let stream = &self.stream;
        let (gpu_time, next) = thread::scope(|s| {
            let waiter = s.spawn(move || {
                let t0 = Instant::now();
                stream.synchronize().map(|_| t0.elapsed())
            });
            let next = plan_next(cam);
            (waiter.join().expect("waiter thread panicked"), next)
        });
        let gpu_time = gpu_time?;

        let mean = self.image.iter().map(|&px| (px & 0xFF) as f64).sum::<f64>() / n.max(1) as f64;
        Ok((mean, gpu_time, next))
    }
}

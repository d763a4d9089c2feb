//! case: ocean-surface generator uploads its initial Phillips spectrum from a pageable Vec with `clone_htod` and, every frame, pulls the whole height field back with `clone_dtoh` into a fresh Vec for the CPU collision mesh; both are pageable async copies of run-time size
//! expect: pageable_async_copy=2

use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, DriverError, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const OCEAN_SRC: &str = r#"
extern "C" __global__ void evolve(const float2* h0, float* height, int n, float t, float L) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= n || y >= n) return;
    float kx = 6.2831853f * (x - n / 2) / L, ky = 6.2831853f * (y - n / 2) / L;
    float w = sqrtf(9.81f * sqrtf(kx * kx + ky * ky));
    float2 a = h0[y * n + x];
    height[y * n + x] = a.x * cosf(w * t) - a.y * sinf(w * t);
}
"#;

fn phillips(n: usize, wind: (f32, f32), l: f32, seed: u32) -> Vec<f32> {
    let mut out = Vec::with_capacity(2 * n * n);
    let mut s = seed | 1;
    let speed = (wind.0 * wind.0 + wind.1 * wind.1).sqrt();
    let big_l = speed * speed / 9.81;
    for y in 0..n {
        for x in 0..n {
            let kx = std::f32::consts::TAU * (x as f32 - n as f32 / 2.0) / l;
            let ky = std::f32::consts::TAU * (y as f32 - n as f32 / 2.0) / l;
            let k2 = (kx * kx + ky * ky).max(1e-6);
            let kw = (kx * wind.0 + ky * wind.1) / (k2.sqrt() * speed);
            let p = (-1.0 / (k2 * big_l * big_l)).exp() / (k2 * k2) * kw * kw;
            s ^= s << 13;
            s ^= s >> 17;
            s ^= s << 5;
            let g = (s as f32 / u32::MAX as f32) - 0.5;
            out.push(g * p.sqrt());
            out.push(-g * p.sqrt());
        }
    }
    out
}

pub struct Ocean {
    stream: Arc<CudaStream>,
    evolve: CudaFunction,
    h0: CudaSlice<f32>,
    height: CudaSlice<f32>,
    n: usize,
    patch: f32,
}

impl Ocean {
    pub fn new(ctx: &Arc<CudaContext>, n: usize, patch: f32, wind: (f32, f32)) -> Result<Self, Box<dyn std::error::Error>> {
        let stream = ctx.new_stream()?;
        let spectrum = phillips(n, wind, patch, 0xC0FFEE);
        let h0 = stream.clone_htod(&spectrum)?; // EXPECT: pageable_async_copy
        Ok(Self {
            evolve: ctx.load_module(compile_ptx(OCEAN_SRC)?)?.load_function("evolve")?,
            height: stream.alloc_zeros(n * n)?,
            h0,
            stream,
            n,
            patch,
        })
    }

    /// Heights for the physics collision mesh at time `t`.
    pub fn heights(&mut self, t: f32) -> Result<Vec<f32>, DriverError> {
        let n = self.n as i32;
        let cfg = LaunchConfig {
            grid_dim: ((self.n as u32).div_ceil(16), (self.n as u32).div_ceil(16), 1),
            block_dim: (16, 16, 1),
            shared_mem_bytes: 0,
        };
        unsafe {
            self.stream.launch_builder(&self.evolve).arg(&self.h0).arg(&mut self.height).arg(&n).arg(&t).arg(&self.patch).launch(cfg)?;
        }
        let field = self.stream.clone_dtoh(&self.height)?; // EXPECT: pageable_async_copy
        let max = field.iter().cloned().fold(f32::MIN, f32::max);
        debug_assert!(max.is_finite());
        Ok(field)
    }
}

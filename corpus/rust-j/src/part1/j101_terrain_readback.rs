//! case: terrain erosion simulator on the context's only (default) stream reads its pinned heightmap readback through `as_slice` right after the async D2H copy; with a single stream cudarc records no event, so `as_slice` waits for nothing
//! expect: missing_sync=1

use std::sync::Arc;

use cudarc::driver::{
    CudaContext, CudaFunction, CudaSlice, CudaStream, DriverError, LaunchConfig, PinnedHostSlice, PushKernelArg,
};
use cudarc::nvrtc::compile_ptx;

const EROSION_SRC: &str = r#"
extern "C" __global__ void erode(float* height, const float* rain, int w, int h, float k) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x <= 0 || y <= 0 || x >= w - 1 || y >= h - 1) return;
    int i = y * w + x;
    float c = height[i];
    float lap = height[i - 1] + height[i + 1] + height[i - w] + height[i + w] - 4.0f * c;
    height[i] = c + k * rain[i] * lap;
}
"#;

#[derive(Debug, Default, Clone, Copy)]
pub struct TerrainStats {
    pub min: f32,
    pub max: f32,
    pub mean: f32,
}

fn summarize(h: &[f32]) -> TerrainStats {
    if h.is_empty() {
        return TerrainStats::default();
    }
    let (mut lo, mut hi, mut sum) = (f32::MAX, f32::MIN, 0.0f64);
    for &v in h {
        lo = lo.min(v);
        hi = hi.max(v);
        sum += v as f64;
    }
    TerrainStats { min: lo, max: hi, mean: (sum / h.len() as f64) as f32 }
}

pub struct TerrainSim {
    stream: Arc<CudaStream>,
    erode: CudaFunction,
    height: CudaSlice<f32>,
    rain: CudaSlice<f32>,
    readback: PinnedHostSlice<f32>,
    width: usize,
    depth: usize,
    pub history: Vec<TerrainStats>,
}

impl TerrainSim {
    pub fn new(ctx: &Arc<CudaContext>, width: usize, depth: usize, seed: u64) -> Result<Self, Box<dyn std::error::Error>> {
        let n = width * depth;
        let stream = ctx.default_stream();
        let module = ctx.load_module(compile_ptx(EROSION_SRC)?)?;
        let erode = module.load_function("erode")?;

        // Initial terrain and rain maps are generated straight into page-locked memory.
        let mut init = unsafe { ctx.alloc_pinned_with_flags::<f32>(n, 0)? };
        let mut rng = seed;
        for v in init.as_mut_slice()?.iter_mut() {
            rng = rng.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            *v = ((rng >> 40) as f32) / (1u64 << 24) as f32 * 120.0;
        }
        let mut height = stream.alloc_zeros::<f32>(n)?;
        stream.memcpy_htod(&init, &mut height)?;
        let rain = stream.alloc_zeros::<f32>(n)?;
        stream.synchronize()?;
        drop(init);

        let readback = unsafe { ctx.alloc_pinned_with_flags::<f32>(n, 0)? };
        Ok(Self { stream, erode, height, rain, readback, width, depth, history: Vec::new() })
    }

    fn launch_cfg(&self) -> LaunchConfig {
        LaunchConfig {
            grid_dim: ((self.width as u32).div_ceil(16), (self.depth as u32).div_ceil(16), 1),
            block_dim: (16, 16, 1),
            shared_mem_bytes: 0,
        }
    }

    pub fn step(&mut self, iterations: usize, k: f32) -> Result<TerrainStats, DriverError> {
        let (w, h) = (self.width as i32, self.depth as i32);
        let cfg = self.launch_cfg();
        for _ in 0..iterations {
            unsafe {
                self.stream
                    .launch_builder(&self.erode)
                    .arg(&mut self.height)
                    .arg(&self.rain)
                    .arg(&w)
                    .arg(&h)
                    .arg(&k)
                    .launch(cfg)?;
            }
        }
        self.stream.memcpy_dtoh(&self.height, &mut self.readback)?;
        let stats = summarize(self.readback.as_slice()?); // EXPECT: missing_sync
        self.history.push(stats);
        Ok(stats)
    }
}

pub fn run(ctx: &Arc<CudaContext>) -> Result<(), Box<dyn std::error::Error>> {
    let mut sim = TerrainSim::new(ctx, 1024, 1024, 0x5eed)?;
    for epoch in 0..8 {
        let s = sim.step(50, 0.02)?;
        println!("epoch {epoch}: relief {:.2}..{:.2}, mean {:.2}", s.min, s.max, s.mean);
    }
    Ok(())
}

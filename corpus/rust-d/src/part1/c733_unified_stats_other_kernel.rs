//! case: a Monte Carlo pricer keeps per-run statistics in cudarc unified memory (`alloc_unified(.., true)`, attach global); it launches the next batch's path kernel, which uses only device slices, and reads the previous batch's statistics through `as_slice` while that kernel runs (the statistics' own event was recorded by an earlier, finished kernel)
//! expect: managed_concurrent_access=1

use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, DriverError, LaunchConfig, PushKernelArg, UnifiedSlice};
use cudarc::nvrtc::compile_ptx;

const MC_CU: &str = r#"
extern "C" __global__ void simulate_paths(const float* normals, int steps, float s0, float mu, float sigma,
                                          float dt, float strike, float* payoff, int n_paths) {
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= n_paths) return;
    float s = s0;
    for (int t = 0; t < steps; ++t) s *= expf((mu - 0.5f * sigma * sigma) * dt + sigma * sqrtf(dt) * normals[t * n_paths + p]);
    payoff[p] = fmaxf(s - strike, 0.f);
}
extern "C" __global__ void reduce_stats(const float* payoff, int n_paths, double* stats) {
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= n_paths) return;
    atomicAdd(&stats[0], (double)payoff[p]);
    atomicAdd(&stats[1], (double)payoff[p] * payoff[p]);
}
"#;

pub struct Pricer {
    stream: Arc<CudaStream>,
    simulate: CudaFunction,
    reduce: CudaFunction,
    payoff: CudaSlice<f32>,
    stats: UnifiedSlice<f64>,
    n_paths: i32,
    steps: i32,
}

impl Pricer {
    pub fn new(ctx: &Arc<CudaContext>, n_paths: i32, steps: i32) -> Result<Self, Box<dyn std::error::Error>> {
        let module = ctx.load_module(compile_ptx(MC_CU)?)?;
        let stream = ctx.default_stream();
        let payoff = stream.alloc_zeros::<f32>(n_paths as usize)?;
        let mut stats = unsafe { ctx.alloc_unified::<f64>(2, true)? };
        stats.as_mut_slice()?.fill(0.0);
        Ok(Self { simulate: module.load_function("simulate_paths")?, reduce: module.load_function("reduce_stats")?, stream, payoff, stats, n_paths, steps })
    }

    /// Reduces the batch whose payoffs are on the device, starts the next batch, and returns the
    /// (mean, variance) of the reduced batch.
    pub fn next_batch(&mut self, normals: &CudaSlice<f32>, s0: f32, mu: f32, sigma: f32, dt: f32, strike: f32) -> Result<(f64, f64), DriverError> {
        let cfg = LaunchConfig::for_num_elems(self.n_paths as u32);
        self.stream.memset_zeros(&mut self.stats)?;
        unsafe {
            self.stream.launch_builder(&self.reduce).arg(&self.payoff).arg(&self.n_paths).arg(&mut self.stats).launch(cfg)?;
        }
        self.stream.synchronize()?;
        unsafe {
            self.stream
                .launch_builder(&self.simulate)
                .arg(normals)
                .arg(&self.steps)
                .arg(&s0)
                .arg(&mu)
                .arg(&sigma)
                .arg(&dt)
                .arg(&strike)
                .arg(&mut self.payoff)
                .arg(&self.n_paths)
                .launch(cfg)?;
        }
        let [sum, sum_sq] = <[f64; 2]>::try_from(self.stats.as_slice()?).expect("two stats"); // EXPECT: managed_concurrent_access
        let mean = sum / self.n_paths as f64;
        Ok((mean, sum_sq / self.n_paths as f64 - mean * mean))
    }
}

//! case: Monte Carlo pricing of a European call on the default stream alone; payoffs are copied into plain pinned memory, the host does CPU-side work meanwhile, and the read happens only after `event.synchronize()` on an event recorded after the copy
//! expect: none

use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, LaunchConfig, PinnedHostSlice, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

type BoxResult<T> = Result<T, Box<dyn std::error::Error>>;

const PATHS_SRC: &str = r#"
__device__ float uniform(unsigned long long* s) {
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return ((*s >> 40) + 0.5f) * (1.0f / 16777216.0f);
}
extern "C" __global__ void gbm_call_payoff(float* payoff, int n_paths, int n_steps, float s0, float k,
                                           float r, float sigma, float t, unsigned long long seed) {
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= n_paths) return;
    unsigned long long s = seed ^ (0x9E3779B97F4A7C15ULL * (p + 1));
    float dt = t / n_steps, x = logf(s0);
    for (int i = 0; i < n_steps; ++i) {
        float u1 = uniform(&s), u2 = uniform(&s);
        float z = sqrtf(-2.f * logf(u1)) * cosf(6.2831853f * u2);
        x += (r - 0.5f * sigma * sigma) * dt + sigma * sqrtf(dt) * z;
    }
    payoff[p] = fmaxf(expf(x) - k, 0.f) * expf(-r * t);
}
"#;

#[derive(Debug, Clone, Copy)]
pub struct OptionSpec {
    pub spot: f32,
    pub strike: f32,
    pub rate: f32,
    pub vol: f32,
    pub maturity: f32,
}

fn norm_cdf(x: f64) -> f64 {
    // Abramowitz-Stegun 7.1.26
    let t = 1.0 / (1.0 + 0.3275911 * x.abs() / std::f64::consts::SQRT_2);
    let poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))));
    let erf = 1.0 - poly * (-(x * x) / 2.0).exp();
    0.5 * (1.0 + if x >= 0.0 { erf } else { -erf })
}

fn black_scholes(o: &OptionSpec) -> f64 {
    let (s, k, r, v, t) = (o.spot as f64, o.strike as f64, o.rate as f64, o.vol as f64, o.maturity as f64);
    let d1 = ((s / k).ln() + (r + 0.5 * v * v) * t) / (v * t.sqrt());
    let d2 = d1 - v * t.sqrt();
    s * norm_cdf(d1) - k * (-r * t).exp() * norm_cdf(d2)
}

pub struct McPricer {
    stream: Arc<CudaStream>,
    kernel: CudaFunction,
    d_payoff: CudaSlice<f32>,
    h_payoff: PinnedHostSlice<f32>,
    n_paths: usize,
}

impl McPricer {
    pub fn new(ctx: &Arc<CudaContext>, n_paths: usize) -> BoxResult<Self> {
        let stream = ctx.default_stream();
        let kernel = ctx.load_module(compile_ptx(PATHS_SRC)?)?.load_function("gbm_call_payoff")?;
        let d_payoff = stream.alloc_zeros::<f32>(n_paths)?;
        let h_payoff = unsafe { ctx.alloc_pinned_with_flags::<f32>(n_paths, 0)? };
        Ok(Self { stream, kernel, d_payoff, h_payoff, n_paths })
    }

    /// Returns (Monte Carlo price, standard error, analytic price).
    pub fn price(&mut self, o: &OptionSpec, n_steps: i32, seed: u64) -> BoxResult<(f64, f64, f64)> {
        let n = self.n_paths as i32;
        let mut launch = self.stream.launch_builder(&self.kernel);
        launch
            .arg(&mut self.d_payoff)
            .arg(&n)
            .arg(&n_steps)
            .arg(&o.spot)
            .arg(&o.strike)
            .arg(&o.rate)
            .arg(&o.vol)
            .arg(&o.maturity)
            .arg(&seed);
        unsafe { launch.launch(LaunchConfig::for_num_elems(self.n_paths as u32)) }?;
        self.stream.memcpy_dtoh(&self.d_payoff, &mut self.h_payoff)?;
        let copied = self.stream.record_event(None)?;

        // Overlap: the closed form on the CPU while the GPU simulates.
        let analytic = black_scholes(o);

        copied.synchronize()?;
        let payoffs = self.h_payoff.as_slice()?;
        let n = payoffs.len() as f64;
        let mean = payoffs.iter().map(|&p| p as f64).sum::<f64>() / n;
        let var = payoffs.iter().map(|&p| (p as f64 - mean).powi(2)).sum::<f64>() / (n - 1.0);
        Ok((mean, (var / n).sqrt(), analytic))
    }
}

//! case: stressed-VaR engine with a compute stream and an I/O stream: the P&L kernel and its D2H copy into pinned memory are both queued on the compute stream, but the host synchronizes only the I/O stream (which never waits for compute) before sorting the pinned P&L
//! expect: missing_sync=1

use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, PinnedBuffer, Result, Stream};

const STRESS_SRC: &str = r#"
extern "C" __global__ void stressed_pnl(const float* shocks, const float* delta, const float* gamma,
                                        float* pnl, int scenarios, int factors) {
    int s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= scenarios) return;
    float acc = 0.0f;
    for (int f = 0; f < factors; ++f) {
        float x = shocks[s * factors + f];
        acc += delta[f] * x + 0.5f * gamma[f] * x * x;
    }
    pnl[s] = acc;
}
"#;

pub struct StressVar {
    compute: Stream,
    io: Stream,
    kernel: Kernel,
    shocks: DeviceBuffer<f32>,
    sens: PinnedBuffer<f32>,
    delta: DeviceBuffer<f32>,
    gamma: DeviceBuffer<f32>,
    pnl: DeviceBuffer<f32>,
    pnl_host: PinnedBuffer<f32>,
    factors: usize,
}

impl StressVar {
    pub fn new(ctx: &Context, shocks: DeviceBuffer<f32>, factors: usize) -> Result<Self> {
        let scenarios = shocks.len() / factors;
        Ok(Self {
            compute: ctx.new_stream()?,
            io: ctx.new_stream()?,
            kernel: ctx.load_cuda(STRESS_SRC)?.function("stressed_pnl")?,
            shocks,
            sens: ctx.alloc_pinned(2 * factors)?,
            delta: ctx.alloc(factors)?,
            gamma: ctx.alloc(factors)?,
            pnl: ctx.alloc(scenarios)?,
            pnl_host: ctx.alloc_pinned(scenarios)?,
            factors,
        })
    }

    fn upload_sensitivities(&mut self, delta: &[f32], gamma: &[f32]) -> Result<()> {
        // The previous scenario run may still be reading delta/gamma on the compute stream.
        self.compute.synchronize()?;
        let f = self.factors;
        self.sens[..f].copy_from_slice(delta);
        self.sens[f..].copy_from_slice(gamma);
        // Uploads go through the I/O stream with the blocking copies: done on return.
        self.io.copy_htod(&mut self.delta, &self.sens[..f])?;
        self.io.copy_htod(&mut self.gamma, &self.sens[f..])?;
        Ok(())
    }

    pub fn expected_shortfall(&mut self, delta: &[f32], gamma: &[f32], alpha: f64) -> Result<f32> {
        self.upload_sensitivities(delta, gamma)?;
        let scenarios = self.pnl.len();
        let (s, f) = (scenarios as i32, self.factors as i32);
        unsafe {
            self.compute.launch(
                &self.kernel,
                LaunchConfig::for_num_elems(scenarios as u32),
                &[&self.shocks, &self.delta, &self.gamma, &self.pnl, &s, &f],
            )?;
            self.compute.copy_dtoh_async(&mut self.pnl_host, &self.pnl)?;
        }
        self.io.synchronize()?;
        let mut losses: Vec<f32> = self.pnl_host.iter().map(|&p| -p).collect(); // EXPECT: missing_sync
        losses.sort_by(|a, b| b.total_cmp(a));
        let tail = ((1.0 - alpha) * scenarios as f64).ceil().max(1.0) as usize;
        Ok(losses[..tail.min(losses.len())].iter().sum::<f32>() / tail as f32)
    }
}

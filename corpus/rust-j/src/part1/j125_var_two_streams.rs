//! case: historical-simulation VaR runs the scenario P&L kernel on a compute stream and the readback on a copy stream that waits on an event recorded after the kernel; the host synchronizes the copy stream and then sorts the pinned P&L to take the quantile
//! expect: none

use cuda_lint_runtime::{Context, DeviceBuffer, Event, Kernel, LaunchConfig, PinnedBuffer, Result, Stream};

const PNL_SRC: &str = r#"
extern "C" __global__ void scenario_pnl(const float* returns, const float* weights, float* pnl, int scenarios, int assets) {
    int s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= scenarios) return;
    float acc = 0.0f;
    for (int a = 0; a < assets; ++a) acc += weights[a] * returns[s * assets + a];
    pnl[s] = acc;
}
"#;

pub struct VarEngine {
    compute: Stream,
    copy: Stream,
    pnl_ready: Event,
    kernel: Kernel,
    returns: DeviceBuffer<f32>,
    weights: DeviceBuffer<f32>,
    weights_host: PinnedBuffer<f32>,
    pnl: DeviceBuffer<f32>,
    pnl_host: PinnedBuffer<f32>,
    scenarios: usize,
    assets: usize,
}

impl VarEngine {
    pub fn new(ctx: &Context, returns: DeviceBuffer<f32>, scenarios: usize, assets: usize) -> Result<Self> {
        Ok(Self {
            compute: ctx.new_stream()?,
            copy: ctx.new_stream()?,
            pnl_ready: ctx.new_event()?,
            kernel: ctx.load_cuda(PNL_SRC)?.function("scenario_pnl")?,
            returns,
            weights: ctx.alloc(assets)?,
            weights_host: ctx.alloc_pinned(assets)?,
            pnl: ctx.alloc(scenarios)?,
            pnl_host: ctx.alloc_pinned(scenarios)?,
            scenarios,
            assets,
        })
    }

    pub fn value_at_risk(&mut self, weights: &[f32], confidence: f64) -> Result<f32> {
        self.weights_host.copy_from_slice(weights);
        let (s, a) = (self.scenarios as i32, self.assets as i32);
        unsafe {
            self.compute.copy_htod_async(&mut self.weights, &self.weights_host)?;
            self.compute.launch(&self.kernel, LaunchConfig::for_num_elems(self.scenarios as u32), &[&self.returns, &self.weights, &self.pnl, &s, &a])?;
        }
        self.compute.record_event(&self.pnl_ready)?;
        self.copy.wait_event(&self.pnl_ready)?;
        unsafe { self.copy.copy_dtoh_async(&mut self.pnl_host, &self.pnl)? };
        self.copy.synchronize()?;

        let mut losses: Vec<f32> = self.pnl_host.iter().map(|p| -p).collect();
        losses.sort_by(|x, y| x.partial_cmp(y).unwrap_or(std::cmp::Ordering::Equal));
        let idx = ((confidence * losses.len() as f64).ceil() as usize).saturating_sub(1).min(losses.len().saturating_sub(1));
        Ok(losses.get(idx).copied().unwrap_or(0.0))
    }
}

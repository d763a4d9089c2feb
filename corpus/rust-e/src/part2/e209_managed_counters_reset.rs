//! case: a training step keeps its audit counters in managed memory and the host zeroes them right after enqueueing the optimizer kernel, which only uses the weight and gradient buffers and may still be running
//! expect: managed_concurrent_access=1

use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, ManagedBuffer, Result, Stream};

const TRAIN_SRC: &str = r#"
extern "C" __global__ void sgd_momentum(float* w, float* v, const float* g, float lr, float mu, unsigned int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        v[i] = mu * v[i] + g[i];
        w[i] -= lr * v[i];
    }
}
extern "C" __global__ void audit_grads(const float* g, unsigned int* counters, unsigned int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        if (!isfinite(g[i])) atomicAdd(&counters[0], 1u);
        if (fabsf(g[i]) > 1e3f) atomicAdd(&counters[1], 1u);
    }
}
"#;

#[derive(Debug, Clone, Copy, Default)]
pub struct StepReport {
    pub non_finite: u32,
    pub exploding: u32,
}

pub struct Trainer {
    stream: Stream,
    sgd: Kernel,
    audit: Kernel,
    weights: DeviceBuffer<f32>,
    velocity: DeviceBuffer<f32>,
    grads: DeviceBuffer<f32>,
    counters: ManagedBuffer<u32>,
    momentum: f32,
}

impl Trainer {
    pub fn new(ctx: &Context, params: usize) -> Result<Self> {
        let module = ctx.load_cuda(TRAIN_SRC)?;
        Ok(Self {
            stream: ctx.new_stream()?,
            sgd: module.function("sgd_momentum")?,
            audit: module.function("audit_grads")?,
            weights: ctx.alloc_zeroed(params)?,
            velocity: ctx.alloc_zeroed(params)?,
            grads: ctx.alloc_zeroed(params)?,
            counters: ctx.alloc_managed(2)?,
            momentum: 0.9,
        })
    }

    pub fn grads_mut(&mut self) -> &mut DeviceBuffer<f32> {
        &mut self.grads
    }

    pub fn step(&mut self, lr: f32) -> Result<StepReport> {
        let n = self.weights.len() as u32;
        let cfg = LaunchConfig::for_num_elems(n);
        unsafe {
            self.stream.launch(&self.sgd, cfg, &[&self.weights, &self.velocity, &self.grads, &lr, &self.momentum, &n])?;
        }

        // fresh counters for this step's audit
        self.counters.iter_mut().for_each(|c| *c = 0); // EXPECT: managed_concurrent_access

        unsafe { self.stream.launch(&self.audit, cfg, &[&self.grads, &self.counters, &n])? };
        self.stream.synchronize()?;
        Ok(StepReport { non_finite: self.counters[0], exploding: self.counters[1] })
    }
}

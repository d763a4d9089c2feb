//! case: training loop on the runtime layer keeps the per-step learning-rate schedule in a ManagedBuffer read by the optimizer kernel; update_schedule() rewrites it right after step() launched the gradient kernel, which does not use the schedule, on another stream
//! expect: managed_concurrent_access=1
use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, ManagedBuffer, Result, Stream};

const SRC: &str = r#"
extern "C" __global__ void mse_grad(const float* pred, const float* target, float* grad, unsigned int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) grad[i] = 2.f * (pred[i] - target[i]) / (float)n;
}
extern "C" __global__ void sgd_apply(float* w, const float* grad, const float* schedule, unsigned int step, unsigned int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) w[i] -= schedule[step] * grad[i];
}
"#;

pub struct Trainer {
    grad_stream: Stream,
    opt_stream: Stream,
    grad_k: Kernel,
    sgd_k: Kernel,
    weights: DeviceBuffer<f32>,
    grads: DeviceBuffer<f32>,
    schedule: ManagedBuffer<f32>,
    base_lr: f32,
    step: u32,
}

impl Trainer {
    pub fn new(ctx: &Context, params: usize, steps: usize, base_lr: f32) -> Result<Trainer> {
        let module = ctx.load_cuda(SRC)?;
        let mut schedule = ctx.alloc_managed::<f32>(steps)?;
        schedule.iter_mut().for_each(|lr| *lr = base_lr);
        Ok(Trainer {
            grad_stream: ctx.new_stream()?,
            opt_stream: ctx.new_stream()?,
            grad_k: module.function("mse_grad")?,
            sgd_k: module.function("sgd_apply")?,
            weights: ctx.alloc_zeroed(params)?,
            grads: ctx.alloc_zeroed(params)?,
            schedule,
            base_lr,
            step: 0,
        })
    }

    /// Gradient of this batch (asynchronous, on the gradient stream).
    fn step(&mut self, pred: &DeviceBuffer<f32>, target: &DeviceBuffer<f32>) -> Result<()> {
        // The optimizer must be done reading the previous gradients.
        self.opt_stream.synchronize()?;
        let n = self.grads.len() as u32;
        unsafe { self.grad_stream.launch(&self.grad_k, LaunchConfig::for_num_elems(n), &[pred, target, &self.grads, &n]) }
    }

    /// Cosine decay with warm restarts, recomputed from the current step on.
    fn update_schedule(&mut self, restart_every: u32) {
        let total = self.schedule.num_elems() as u32;
        let base = self.base_lr;
        for s in self.step..total {
            let t = (s % restart_every) as f32 / restart_every as f32;
            self.schedule[s as usize] = 0.5 * base * (1.0 + (std::f32::consts::PI * t).cos()); // EXPECT: managed_concurrent_access
        }
    }

    fn apply(&mut self) -> Result<()> {
        self.grad_stream.synchronize()?;
        let (n, step) = (self.weights.len() as u32, self.step);
        unsafe {
            self.opt_stream
                .launch(&self.sgd_k, LaunchConfig::for_num_elems(n), &[&self.weights, &self.grads, &self.schedule, &step, &n])?;
        }
        self.step += 1;
        Ok(())
    }

    pub fn train_epoch(&mut self, batches: &[(DeviceBuffer<f32>, DeviceBuffer<f32>)], restart_every: u32) -> Result<()> {
        for (pred, target) in batches {
            self.step(pred, target)?;
            if self.step % restart_every == 0 {
                self.update_schedule(restart_every);
            }
            self.apply()?;
        }
        self.opt_stream.synchronize()
    }
}

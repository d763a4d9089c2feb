//! case: training loop with two managed buffers: `hyper` (learning rate and Adam betas, read by the optimizer kernel) is rewritten at the top of each step after the previous step was synchronized; `step_log`, read only by the end-of-epoch eval kernel, is written by the host right after the forward/backward kernel (which does not use it) is launched
//! expect: managed_concurrent_access=1

use cuda_lint_runtime::{Context, DeviceBuffer, LaunchConfig, ManagedBuffer, Result};

const TRAIN_SRC: &str = r#"
extern "C" __global__ void fwd_bwd(const float* w, const float* x, const float* y, float* grad, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) grad[i] = 2.0f * (w[i] * x[i] - y[i]) * x[i];
}

extern "C" __global__ void adam(float* w, float* m, float* v, const float* grad, const float* hyper,
                                unsigned step, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float lr = hyper[0], b1 = hyper[1], b2 = hyper[2], eps = hyper[3];
    m[i] = b1 * m[i] + (1.0f - b1) * grad[i];
    v[i] = b2 * v[i] + (1.0f - b2) * grad[i] * grad[i];
    float mh = m[i] / (1.0f - powf(b1, step + 1)), vh = v[i] / (1.0f - powf(b2, step + 1));
    w[i] -= lr * mh / (sqrtf(vh) + eps);
}

extern "C" __global__ void eval_log(const float* step_log, unsigned len, float* out) {
    if (threadIdx.x == 0 && blockIdx.x == 0) {
        float s = 0.0f;
        for (unsigned k = 0; k < len; ++k) s += step_log[k];
        out[0] = s / len;
    }
}
"#;

fn cosine_lr(step: usize, total: usize, peak: f32) -> f32 {
    let warmup = total / 20;
    if step < warmup {
        return peak * (step + 1) as f32 / warmup as f32;
    }
    let t = (step - warmup) as f32 / (total - warmup).max(1) as f32;
    0.5 * peak * (1.0 + (std::f32::consts::PI * t).cos())
}

pub fn train(ctx: &Context, x: &DeviceBuffer<f32>, y: &DeviceBuffer<f32>, steps: usize) -> Result<f32> {
    let stream = ctx.new_stream()?;
    let module = ctx.load_cuda(TRAIN_SRC)?;
    let (fwd_bwd, adam, eval_log) = (module.function("fwd_bwd")?, module.function("adam")?, module.function("eval_log")?);
    let n = x.len() as u32;
    let cfg = LaunchConfig::for_num_elems(n);

    let w = ctx.alloc_zeroed::<f32>(x.len())?;
    let m = ctx.alloc_zeroed::<f32>(x.len())?;
    let v = ctx.alloc_zeroed::<f32>(x.len())?;
    let grad = ctx.alloc_zeroed::<f32>(x.len())?;
    let mut hyper: ManagedBuffer<f32> = ctx.alloc_managed(4)?;
    let mut step_log: ManagedBuffer<f32> = ctx.alloc_managed(steps.max(1))?;
    let mut eval_out: ManagedBuffer<f32> = ctx.alloc_managed(1)?;

    for step in 0..steps {
        let lr = cosine_lr(step, steps, 3e-4);
        hyper.copy_from_slice(&[lr, 0.9, 0.999, 1e-8]);
        unsafe { stream.launch(&fwd_bwd, cfg, &[&w, x, y, &grad, &n])? };
        step_log[step] = lr; // EXPECT: managed_concurrent_access
        let s = step as u32;
        unsafe { stream.launch(&adam, cfg, &[&w, &m, &v, &grad, &hyper, &s, &n])? };
        stream.synchronize()?;
    }

    let len = steps as u32;
    unsafe { stream.launch(&eval_log, LaunchConfig::for_num_elems(1), &[&step_log, &len, &eval_out])? };
    stream.synchronize()?;
    Ok(eval_out[0])
}

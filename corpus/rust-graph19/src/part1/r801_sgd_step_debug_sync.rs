//! Momentum-SGD step captured once into a CUDA graph and replayed per step.
//! With `check_launches` set (the trainer's debug mode) the step synchronizes
//! the stream after the gradient kernels "to surface launch errors early";
//! inside the capture that synchronizes the capturing stream.

use cudarc::driver::{sys, CudaContext, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

const SGD_KERNELS: &str = r#"
extern "C" __global__ void l2_grad(const float *w, const float *target, float *g,
                                   float decay, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) g[i] = 2.0f * (w[i] - target[i]) + decay * w[i];
}

extern "C" __global__ void clip_scale(float *g, float scale, float clip, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) g[i] = fmaxf(-clip, fminf(clip, g[i] * scale));
}

extern "C" __global__ void momentum_update(float *w, float *v, const float *g,
                                           float lr, float mu, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        v[i] = mu * v[i] + g[i];
        w[i] -= lr * v[i];
    }
}
"#;

pub struct SgdConfig {
    pub lr: f32,
    pub momentum: f32,
    pub weight_decay: f32,
    pub grad_scale: f32,
    pub clip: f32,
    pub check_launches: bool,
}

pub fn train_sgd_graph(params: usize, steps: usize, cfg: &SgdConfig) -> Result<Vec<f32>> {
    let ctx = CudaContext::new(0)?;
    // One stream, ordered by hand: cudarc's per-buffer events cannot be waited on
    // from inside a capture.
    unsafe { ctx.disable_event_tracking() };
    let stream = ctx.new_stream()?;
    let module = ctx.load_module(compile_ptx(SGD_KERNELS)?)?;
    let l2_grad = module.load_function("l2_grad")?;
    let clip_scale = module.load_function("clip_scale")?;
    let momentum_update = module.load_function("momentum_update")?;

    let mut h_w = unsafe { ctx.alloc_pinned_with_flags::<f32>(params, 0)? };
    let mut h_target = unsafe { ctx.alloc_pinned::<f32>(params)? };
    for (i, w) in h_w.as_mut_slice()?.iter_mut().enumerate() {
        *w = ((i % 17) as f32 - 8.0) * 0.01;
    }
    for (i, t) in h_target.as_mut_slice()?.iter_mut().enumerate() {
        *t = (i % 5) as f32 * 0.1;
    }

    let mut d_w = stream.alloc_zeros::<f32>(params)?;
    let mut d_target = stream.alloc_zeros::<f32>(params)?;
    let mut d_v = stream.alloc_zeros::<f32>(params)?;
    let mut d_g = stream.alloc_zeros::<f32>(params)?;
    stream.memcpy_htod(&h_w, &mut d_w)?;
    stream.memcpy_htod(&h_target, &mut d_target)?;
    stream.synchronize()?;

    let n = params as i32;
    let launch_cfg = LaunchConfig::for_num_elems(params as u32);
    stream.begin_capture(sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_GLOBAL)?;
    let mut grad = stream.launch_builder(&l2_grad);
    grad.arg(&d_w).arg(&d_target).arg(&mut d_g).arg(&cfg.weight_decay).arg(&n);
    unsafe { grad.launch(launch_cfg) }?;
    let mut clip = stream.launch_builder(&clip_scale);
    clip.arg(&mut d_g).arg(&cfg.grad_scale).arg(&cfg.clip).arg(&n);
    unsafe { clip.launch(launch_cfg) }?;
    if cfg.check_launches {
        stream.synchronize()?; // EXPECT: uncapturable_call
    }
    let mut update = stream.launch_builder(&momentum_update);
    update
        .arg(&mut d_w)
        .arg(&mut d_v)
        .arg(&d_g)
        .arg(&cfg.lr)
        .arg(&cfg.momentum)
        .arg(&n);
    unsafe { update.launch(launch_cfg) }?;
    let step = stream
        .end_capture(sys::CUgraphInstantiate_flags(0))?
        .ok_or("SGD step capture produced no graph")?;

    for _ in 0..steps {
        step.launch()?;
    }
    stream.memcpy_dtoh(&d_w, &mut h_w)?;
    stream.synchronize()?;
    Ok(h_w.as_slice()?.to_vec())
}

//! Graph-captured Adam fine-tuning of a regression head.
//!
//! One optimizer step (gradient of a squared error, then the Adam update) is
//! captured once and replayed `steps` times. The step-dependent hyper-parameters
//! (learning rate and the two bias corrections) live in a small pinned buffer that a
//! captured host-to-device copy reads at every launch.

use std::error::Error;
use std::sync::Arc;

use cudarc::driver::{
    sys, CudaContext, CudaFunction, CudaGraph, CudaSlice, CudaStream, DriverError, LaunchConfig,
    PinnedHostSlice, PushKernelArg,
};
use cudarc::nvrtc::compile_ptx;

const ADAM_SRC: &str = r#"
extern "C" __global__ void sq_err_grad(const float* __restrict__ w,
                                       const float* __restrict__ target,
                                       float* __restrict__ g, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) g[i] = 2.0f * (w[i] - target[i]);
}

// hp = { lr, beta1, beta2, eps, 1 - beta1^t, 1 - beta2^t }
extern "C" __global__ void adam_update(float* __restrict__ w,
                                       const float* __restrict__ g,
                                       float* __restrict__ m,
                                       float* __restrict__ v,
                                       const float* __restrict__ hp, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float gi = g[i];
    float mi = hp[1] * m[i] + (1.0f - hp[1]) * gi;
    float vi = hp[2] * v[i] + (1.0f - hp[2]) * gi * gi;
    m[i] = mi;
    v[i] = vi;
    w[i] -= hp[0] * (mi / hp[4]) / (sqrtf(vi / hp[5]) + hp[3]);
}
"#;

const BETA1: f32 = 0.9;
const BETA2: f32 = 0.999;
const EPS: f32 = 1e-8;
const N_HP: usize = 6;

struct AdamGraph {
    stream: Arc<CudaStream>,
    grad_fn: CudaFunction,
    adam_fn: CudaFunction,
    n: usize,
    w: CudaSlice<f32>,
    target: CudaSlice<f32>,
    g: CudaSlice<f32>,
    m: CudaSlice<f32>,
    v: CudaSlice<f32>,
    d_hp: CudaSlice<f32>,
    h_hp: PinnedHostSlice<f32>,
    graph: Option<CudaGraph>,
}

impl AdamGraph {
    fn new(
        ctx: &Arc<CudaContext>,
        stream: &Arc<CudaStream>,
        init: &[f32],
        target: &[f32],
    ) -> Result<Self, Box<dyn Error>> {
        assert_eq!(init.len(), target.len());
        let n = init.len();
        let module = ctx.load_module(compile_ptx(ADAM_SRC)?)?;
        let grad_fn = module.load_function("sq_err_grad")?;
        let adam_fn = module.load_function("adam_update")?;

        // Upload the starting point and the target through pinned staging buffers.
        let mut h_init = unsafe { ctx.alloc_pinned_with_flags::<f32>(n, 0) }?;
        let mut h_target = unsafe { ctx.alloc_pinned_with_flags::<f32>(n, 0) }?;
        h_init.as_mut_slice()?.copy_from_slice(init);
        h_target.as_mut_slice()?.copy_from_slice(target);
        let mut w = stream.alloc_zeros::<f32>(n)?;
        let mut t = stream.alloc_zeros::<f32>(n)?;
        stream.memcpy_htod(&h_init, &mut w)?;
        stream.memcpy_htod(&h_target, &mut t)?;
        stream.synchronize()?;
        drop(h_init);
        drop(h_target);

        let mut h_hp = unsafe { ctx.alloc_pinned_with_flags::<f32>(N_HP, 0) }?;
        h_hp.as_mut_slice()?.fill(0.0);

        Ok(Self {
            stream: stream.clone(),
            grad_fn,
            adam_fn,
            n,
            w,
            target: t,
            g: stream.alloc_zeros::<f32>(n)?,
            m: stream.alloc_zeros::<f32>(n)?,
            v: stream.alloc_zeros::<f32>(n)?,
            d_hp: stream.alloc_zeros::<f32>(N_HP)?,
            h_hp,
            graph: None,
        })
    }

    /// Writes the hyper-parameters of step `t` into the pinned buffer.
    fn set_hparams(&mut self, lr: f32, t: i32) -> Result<(), DriverError> {
        let hp = self.h_hp.as_mut_slice()?;
        hp[0] = lr;
        hp[1] = BETA1;
        hp[2] = BETA2;
        hp[3] = EPS;
        hp[4] = 1.0 - BETA1.powi(t);
        hp[5] = 1.0 - BETA2.powi(t);
        Ok(())
    }

    /// Pushes the pinned hyper-parameters to the device. Written for the eager
    /// optimizer, where the host rewrites `h_hp` right after this returns.
    fn push_hparams(&mut self) -> Result<(), DriverError> {
        self.stream.memcpy_htod(&self.h_hp, &mut self.d_hp)?;
        self.stream.synchronize() // EXPECT: uncapturable_call
    }

    fn capture(&mut self) -> Result<(), DriverError> {
        let n = self.n as i32;
        let cfg = LaunchConfig::for_num_elems(self.n as u32);
        self.stream
            .begin_capture(sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_GLOBAL)?;
        self.push_hparams()?;
        let mut grad = self.stream.launch_builder(&self.grad_fn);
        grad.arg(&self.w).arg(&self.target).arg(&mut self.g).arg(&n);
        unsafe { grad.launch(cfg) }?;
        let mut adam = self.stream.launch_builder(&self.adam_fn);
        adam.arg(&mut self.w)
            .arg(&self.g)
            .arg(&mut self.m)
            .arg(&mut self.v)
            .arg(&self.d_hp)
            .arg(&n);
        unsafe { adam.launch(cfg) }?;
        self.graph = self
            .stream
            .end_capture(sys::CUgraphInstantiate_flags(0))?;
        Ok(())
    }

    fn download_weights(&self, ctx: &Arc<CudaContext>) -> Result<Vec<f32>, DriverError> {
        let mut out = unsafe { ctx.alloc_pinned_with_flags::<f32>(self.n, 0) }?;
        self.stream.memcpy_dtoh(&self.w, &mut out)?;
        self.stream.synchronize()?;
        Ok(out.as_slice()?.to_vec())
    }
}

/// Fits `init` towards `target` with `steps` graph-replayed Adam steps.
pub fn fit_head(
    init: &[f32],
    target: &[f32],
    steps: usize,
    lr: f32,
) -> Result<Vec<f32>, Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;
    // Graph replay: no cudarc event bookkeeping inside the capture.
    unsafe { ctx.disable_event_tracking() };
    let stream = ctx.new_stream()?;

    let mut opt = AdamGraph::new(&ctx, &stream, init, target)?;
    opt.set_hparams(lr, 1)?;
    opt.capture()?;
    let graph = opt.graph.take().ok_or("capture produced no graph")?;

    for t in 1..=steps as i32 {
        // The previous replay has read h_hp once the stream is idle.
        stream.synchronize()?;
        opt.set_hparams(lr, t)?;
        graph.launch()?;
    }
    stream.synchronize()?;
    let w = opt.download_weights(&ctx)?;
    Ok(w)
}

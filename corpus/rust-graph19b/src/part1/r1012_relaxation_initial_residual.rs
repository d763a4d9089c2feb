//! Damped-Jacobi relaxation towards the steady state of a 1-D rod with heat
//! sources, reporting the convergence history relative to the initial residual.
//!
//! The initial residual is computed eagerly (and waited for) before the capture;
//! the capture then records the same residual kernel and copy into the same pinned
//! scalar. Capturing runs nothing, so right after `end_capture` the scalar still
//! holds the eager result, which the host reads as the reference value.

use std::error::Error;
use std::sync::Arc;

use cudarc::driver::{
    sys, CudaContext, CudaFunction, CudaSlice, CudaStream, DriverError, LaunchConfig,
    PinnedHostSlice, PushKernelArg,
};
use cudarc::nvrtc::compile_ptx;

const RELAX_SRC: &str = r#"
extern "C" __global__ void damped_jacobi(const float* __restrict__ u,
                                         float* __restrict__ u_new,
                                         const float* __restrict__ q,
                                         float omega, float h2, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float l = (i > 0) ? u[i - 1] : 0.0f;
    float r = (i < n - 1) ? u[i + 1] : 0.0f;
    float jac = 0.5f * (l + r + h2 * q[i]);
    u_new[i] = (1.0f - omega) * u[i] + omega * jac;
}

extern "C" __global__ void residual_sq(const float* __restrict__ u,
                                       const float* __restrict__ q, float h2, int n,
                                       float* __restrict__ acc) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float l = (i > 0) ? u[i - 1] : 0.0f;
    float r = (i < n - 1) ? u[i + 1] : 0.0f;
    float res = q[i] - (2.0f * u[i] - l - r) / h2;
    atomicAdd(acc, res * res);
}
"#;

struct Relaxer {
    stream: Arc<CudaStream>,
    relax_fn: CudaFunction,
    resid_fn: CudaFunction,
    n: usize,
    h2: f32,
    d_q: CudaSlice<f32>,
    d_u: CudaSlice<f32>,
    d_tmp: CudaSlice<f32>,
    d_acc: CudaSlice<f32>,
    h_acc: PinnedHostSlice<f32>,
}

impl Relaxer {
    /// Enqueues: clear the accumulator, reduce the squared residual, copy it out.
    fn enqueue_residual(&mut self) -> Result<(), DriverError> {
        let n_i = self.n as i32;
        self.stream.memset_zeros(&mut self.d_acc)?;
        let mut b = self.stream.launch_builder(&self.resid_fn);
        b.arg(&self.d_u).arg(&self.d_q).arg(&self.h2).arg(&n_i).arg(&mut self.d_acc);
        unsafe { b.launch(LaunchConfig::for_num_elems(self.n as u32)) }?;
        self.stream.memcpy_dtoh(&self.d_acc, &mut self.h_acc)
    }

    fn enqueue_sweeps(&mut self, sweeps: usize, omega: f32) -> Result<(), DriverError> {
        let n_i = self.n as i32;
        let cfg = LaunchConfig::for_num_elems(self.n as u32);
        for _ in 0..sweeps {
            let mut b = self.stream.launch_builder(&self.relax_fn);
            b.arg(&self.d_u).arg(&mut self.d_tmp).arg(&self.d_q).arg(&omega).arg(&self.h2).arg(&n_i);
            unsafe { b.launch(cfg) }?;
            let mut b = self.stream.launch_builder(&self.relax_fn);
            b.arg(&self.d_tmp).arg(&mut self.d_u).arg(&self.d_q).arg(&omega).arg(&self.h2).arg(&n_i);
            unsafe { b.launch(cfg) }?;
        }
        Ok(())
    }
}

/// Relaxes until the residual has dropped by `reduction` relative to the start;
/// returns the relative residual after each replayed block.
pub fn relax_history(
    q: &[f32],
    sweeps_per_block: usize,
    omega: f32,
    reduction: f32,
    max_blocks: usize,
) -> Result<Vec<f32>, Box<dyn Error>> {
    let n = q.len();
    let h = 1.0f32 / (n as f32 + 1.0);
    let ctx = CudaContext::new(0)?;
    unsafe { ctx.disable_event_tracking() };
    let stream = ctx.new_stream()?;
    let module = ctx.load_module(compile_ptx(RELAX_SRC)?)?;

    let mut h_q = unsafe { ctx.alloc_pinned_with_flags::<f32>(n, 0) }?;
    h_q.as_mut_slice()?.copy_from_slice(q);
    let mut d_q = stream.alloc_zeros::<f32>(n)?;
    stream.memcpy_htod(&h_q, &mut d_q)?;

    let mut rx = Relaxer {
        stream: stream.clone(),
        relax_fn: module.load_function("damped_jacobi")?,
        resid_fn: module.load_function("residual_sq")?,
        n,
        h2: h * h,
        d_q,
        d_u: stream.alloc_zeros::<f32>(n)?,
        d_tmp: stream.alloc_zeros::<f32>(n)?,
        d_acc: stream.alloc_zeros::<f32>(1)?,
        h_acc: unsafe { ctx.alloc_pinned_with_flags::<f32>(1, 0) }?,
    };

    // Eager pass: residual of the initial guess, waited for.
    rx.enqueue_residual()?;
    stream.synchronize()?;

    stream.begin_capture(sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_GLOBAL)?;
    rx.enqueue_sweeps(sweeps_per_block, omega)?;
    rx.enqueue_residual()?;
    let graph = stream
        .end_capture(sys::CUgraphInstantiate_flags(0))?
        .ok_or("empty capture")?;

    // Nothing captured has run yet: h_acc still holds the eager residual.
    let r0 = rx.h_acc.as_slice()?[0].sqrt().max(f32::MIN_POSITIVE);

    let mut history = Vec::new();
    for _ in 0..max_blocks {
        graph.launch()?;
        stream.synchronize()?;
        let rel = rx.h_acc.as_slice()?[0].sqrt() / r0;
        history.push(rel);
        if rel < reduction {
            break;
        }
    }
    Ok(history)
}

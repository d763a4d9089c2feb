//! Explicit heat-equation smoother on a periodic 1-D grid, one Jacobi-style sweep
//! pair captured into a CUDA graph and replayed.
//!
//! The solver is first run on a coarse grid, then regridded to a finer resolution:
//! `regrid` swaps in new field buffers of the new size and re-seeds them.

use std::error::Error;
use std::sync::Arc;

use cudarc::driver::{
    sys, CudaContext, CudaFunction, CudaGraph, CudaSlice, CudaStream, DriverError, LaunchConfig,
    PushKernelArg,
};
use cudarc::nvrtc::compile_ptx;

const HEAT_SRC: &str = r#"
extern "C" __global__ void seed_bump(float* __restrict__ u, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = (i + 0.5f) / n - 0.5f;
    u[i] = expf(-200.0f * x * x);
}

extern "C" __global__ void heat_step(const float* __restrict__ u,
                                     float* __restrict__ out, float alpha, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int l = (i == 0) ? n - 1 : i - 1;
    int r = (i == n - 1) ? 0 : i + 1;
    out[i] = u[i] + alpha * (u[l] - 2.0f * u[i] + u[r]);
}
"#;

struct HeatSolver {
    stream: Arc<CudaStream>,
    seed_fn: CudaFunction,
    step_fn: CudaFunction,
    n: usize,
    alpha: f32,
    u: CudaSlice<f32>,
    scratch: CudaSlice<f32>,
    graph: CudaGraph,
}

impl HeatSolver {
    fn new(ctx: &Arc<CudaContext>, stream: &Arc<CudaStream>, n: usize) -> Result<Self, Box<dyn Error>> {
        let module = ctx.load_module(compile_ptx(HEAT_SRC)?)?;
        let seed_fn = module.load_function("seed_bump")?;
        let step_fn = module.load_function("heat_step")?;
        let alpha = 0.25f32;
        let mut u = stream.alloc_zeros::<f32>(n)?;
        let mut scratch = stream.alloc_zeros::<f32>(n)?;
        seed(stream, &seed_fn, &mut u, n)?;
        let graph = capture_sweep(stream, &step_fn, &mut u, &mut scratch, n, alpha)?;
        Ok(Self { stream: stream.clone(), seed_fn, step_fn, n, alpha, u, scratch, graph })
    }

    /// Moves the solver to a grid of `n` points: new buffers, freshly seeded.
    fn regrid(&mut self, n: usize) -> Result<(), DriverError> {
        self.u = self.stream.alloc_zeros::<f32>(n)?;
        self.scratch = self.stream.alloc_zeros::<f32>(n)?;
        self.n = n;
        seed(&self.stream, &self.seed_fn, &mut self.u, n)
    }

    fn read_field(&self, ctx: &Arc<CudaContext>) -> Result<Vec<f32>, DriverError> {
        let mut host = unsafe { ctx.alloc_pinned_with_flags::<f32>(self.n, 0) }?;
        self.stream.memcpy_dtoh(&self.u, &mut host)?;
        self.stream.synchronize()?;
        Ok(host.as_slice()?.to_vec())
    }
}

fn seed(
    stream: &Arc<CudaStream>,
    seed_fn: &CudaFunction,
    u: &mut CudaSlice<f32>,
    n: usize,
) -> Result<(), DriverError> {
    let n_i = n as i32;
    let mut b = stream.launch_builder(seed_fn);
    b.arg(u).arg(&n_i);
    unsafe { b.launch(LaunchConfig::for_num_elems(n as u32)) }?;
    Ok(())
}

/// Captures two half-steps (u -> scratch -> u) into one graph.
fn capture_sweep(
    stream: &Arc<CudaStream>,
    step_fn: &CudaFunction,
    u: &mut CudaSlice<f32>,
    scratch: &mut CudaSlice<f32>,
    n: usize,
    alpha: f32,
) -> Result<CudaGraph, DriverError> {
    let cfg = LaunchConfig::for_num_elems(n as u32);
    let n_i = n as i32;
    stream.begin_capture(sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL)?;
    let mut b = stream.launch_builder(step_fn);
    b.arg(&*u).arg(&mut *scratch).arg(&alpha).arg(&n_i);
    unsafe { b.launch(cfg) }?;
    let mut b = stream.launch_builder(step_fn);
    b.arg(&*scratch).arg(&mut *u).arg(&alpha).arg(&n_i);
    unsafe { b.launch(cfg) }?;
    let graph = stream.end_capture(sys::CUgraphInstantiate_flags(0))?;
    Ok(graph.expect("non-empty capture"))
}

/// Diffuses the initial bump for `sweeps` sweep pairs on a coarse grid, then on a
/// fine one; returns both final fields.
pub fn coarse_then_fine(
    coarse: usize,
    fine: usize,
    sweeps: usize,
) -> Result<(Vec<f32>, Vec<f32>), Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;
    unsafe { ctx.disable_event_tracking() };
    let stream = ctx.new_stream()?;

    let mut solver = HeatSolver::new(&ctx, &stream, coarse)?;
    for _ in 0..sweeps {
        solver.graph.launch()?;
    }
    stream.synchronize()?;
    let coarse_field = solver.read_field(&ctx)?;

    solver.regrid(fine)?;
    for _ in 0..sweeps {
        solver.graph.launch()?; // EXPECT: graph_uses_freed_memory
    }
    stream.synchronize()?;
    let fine_field = solver.read_field(&ctx)?;
    Ok((coarse_field, fine_field))
}

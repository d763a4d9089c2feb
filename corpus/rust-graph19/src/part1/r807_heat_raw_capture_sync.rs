//! 2-D heat diffusion written against the driver API: a block of explicit time
//! steps and a convergence measure are captured with `cuStreamBeginCapture_v2`
//! and replayed with `cuGraphLaunch`. Between the time steps and the
//! measurement the code waits for the stream "so the sweeps are done", which
//! synchronizes the stream being captured.

use std::ptr;

use cudarc::driver::{sys, CudaContext, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

/// Checks a driver call's status, returning it as this module's error.
macro_rules! cu {
    ($call:expr) => {
        unsafe { $call }.result()?
    };
}

const HEAT_KERNELS: &str = r#"
extern "C" __global__ void heat_step(const float *u, float *v, float alpha, int nx, int ny) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= nx || y >= ny) return;
    int i = y * nx + x;
    if (x == 0 || y == 0 || x == nx - 1 || y == ny - 1) { v[i] = u[i]; return; }
    v[i] = u[i] + alpha * (u[i - 1] + u[i + 1] + u[i - nx] + u[i + nx] - 4.0f * u[i]);
}

extern "C" __global__ void max_change(const float *u, const float *v, unsigned int *bits, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicMax(bits, __float_as_uint(fabsf(u[i] - v[i])));
}
"#;

pub fn diffuse(nx: usize, ny: usize, steps_per_graph: usize, replays: usize, alpha: f32) -> Result<(Vec<f32>, f32)> {
    let ctx = CudaContext::new(0)?;
    unsafe { ctx.disable_event_tracking() };
    let stream = ctx.new_stream()?;
    let module = ctx.load_module(compile_ptx(HEAT_KERNELS)?)?;
    let heat_step = module.load_function("heat_step")?;
    let max_change = module.load_function("max_change")?;

    let cells = nx * ny;
    let mut h_u = unsafe { ctx.alloc_pinned_with_flags::<f32>(cells, 0)? };
    {
        let u = h_u.as_mut_slice()?;
        u.fill(0.0);
        u[(ny / 2) * nx + nx / 2] = 100.0;
    }
    let mut h_change = unsafe { ctx.alloc_pinned_with_flags::<u32>(1, 0)? };
    let mut d_u = stream.alloc_zeros::<f32>(cells)?;
    let mut d_v = stream.alloc_zeros::<f32>(cells)?;
    let mut d_change = stream.alloc_zeros::<u32>(1)?;
    stream.memcpy_htod(&h_u, &mut d_u)?;
    stream.synchronize()?;

    let (w, h, n) = (nx as i32, ny as i32, cells as i32);
    let grid = LaunchConfig {
        grid_dim: (nx.div_ceil(16) as u32, ny.div_ceil(16) as u32, 1),
        block_dim: (16, 16, 1),
        shared_mem_bytes: 0,
    };
    let s = stream.cu_stream();

    cu!(sys::cuStreamBeginCapture_v2(s, sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_GLOBAL));
    for _ in 0..steps_per_graph.max(1) {
        let mut fwd = stream.launch_builder(&heat_step);
        fwd.arg(&d_u).arg(&mut d_v).arg(&alpha).arg(&w).arg(&h);
        unsafe { fwd.launch(grid) }?;
        let mut back = stream.launch_builder(&heat_step);
        back.arg(&d_v).arg(&mut d_u).arg(&alpha).arg(&w).arg(&h);
        unsafe { back.launch(grid) }?;
    }
    // Make sure the sweeps are done before measuring convergence.
    cu!(sys::cuStreamSynchronize(s)); // EXPECT: uncapturable_call
    stream.memset_zeros(&mut d_change)?;
    let mut measure = stream.launch_builder(&max_change);
    measure.arg(&d_u).arg(&d_v).arg(&mut d_change).arg(&n);
    unsafe { measure.launch(LaunchConfig::for_num_elems(cells as u32)) }?;
    stream.memcpy_dtoh(&d_change, &mut h_change)?;
    let mut graph: sys::CUgraph = ptr::null_mut();
    cu!(sys::cuStreamEndCapture(s, &mut graph));
    let mut exec: sys::CUgraphExec = ptr::null_mut();
    cu!(sys::cuGraphInstantiateWithFlags(&mut exec, graph, 0));

    for _ in 0..replays {
        cu!(sys::cuGraphLaunch(exec, s));
    }
    cu!(sys::cuStreamSynchronize(s));
    let change = f32::from_bits(h_change.as_slice()?[0]);
    cu!(sys::cuGraphExecDestroy(exec));
    cu!(sys::cuGraphDestroy(graph));

    stream.memcpy_dtoh(&d_u, &mut h_u)?;
    stream.synchronize()?;
    Ok((h_u.as_slice()?.to_vec(), change))
}

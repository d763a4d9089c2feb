//! Power iteration for the dominant eigenpair of a dense symmetric matrix,
//! captured with the driver API. The product A x lands in a raw workspace
//! (`result::malloc_sync`). After the warm-up iterations the solver switches to
//! Rayleigh-quotient refinement and grows the workspace (free, then allocate
//! twice the size), but keeps launching the graph it captured before, whose
//! kernels still name the freed workspace.

use std::mem::size_of;
use std::ptr;
use std::sync::Arc;

use cudarc::driver::{
    result, sys, CudaContext, CudaFunction, CudaSlice, CudaStream, LaunchConfig, PushKernelArg,
};
use cudarc::nvrtc::compile_ptx;

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

const POWER_KERNELS: &str = r#"
extern "C" __global__ void matvec(const float *a, const float *x, float *y, int n) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= n) return;
    float acc = 0.0f;
    for (int c = 0; c < n; ++c) acc += a[(size_t)r * n + c] * x[c];
    y[r] = acc;
}

extern "C" __global__ void norm_sq(const float *y, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(out, y[i] * y[i]);
}

extern "C" __global__ void normalize(const float *y, const float *norm2, float *x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = y[i] * rsqrtf(fmaxf(*norm2, 1e-30f));
}
"#;

pub struct PowerIteration {
    stream: Arc<CudaStream>,
    matvec: CudaFunction,
    norm_sq: CudaFunction,
    normalize: CudaFunction,
    d_a: CudaSlice<f32>,
    d_x: CudaSlice<f32>,
    d_norm2: CudaSlice<f32>,
    n: usize,
    warmup: usize,
    ws: sys::CUdeviceptr,
    ws_bytes: usize,
}

impl PowerIteration {
    pub fn new(matrix: &[f32], n: usize, warmup: usize) -> Result<Self> {
        let ctx = CudaContext::new(0)?;
        unsafe { ctx.disable_event_tracking() };
        let stream = ctx.new_stream()?;
        let module = ctx.load_module(compile_ptx(POWER_KERNELS)?)?;
        let matvec = module.load_function("matvec")?;
        let norm_sq = module.load_function("norm_sq")?;
        let normalize = module.load_function("normalize")?;

        let mut h_a = unsafe { ctx.alloc_pinned::<f32>(n * n)? };
        h_a.as_mut_slice()?.copy_from_slice(&matrix[..n * n]);
        let mut h_x = unsafe { ctx.alloc_pinned::<f32>(n)? };
        h_x.as_mut_slice()?.fill(1.0 / (n as f32).sqrt());
        let mut d_a = stream.alloc_zeros::<f32>(n * n)?;
        let mut d_x = stream.alloc_zeros::<f32>(n)?;
        let d_norm2 = stream.alloc_zeros::<f32>(1)?;
        stream.memcpy_htod(&h_a, &mut d_a)?;
        stream.memcpy_htod(&h_x, &mut d_x)?;
        stream.synchronize()?;

        let ws_bytes = n * size_of::<f32>();
        let ws = unsafe { result::malloc_sync(ws_bytes) }?;
        Ok(Self { stream, matvec, norm_sq, normalize, d_a, d_x, d_norm2, n, warmup, ws, ws_bytes })
    }

    /// Runs `iters` iterations and returns the eigenvalue estimate |A x|.
    pub fn run(&mut self, iters: usize) -> Result<f32> {
        let s = self.stream.cu_stream();
        let len = self.n as i32;
        let cfg = LaunchConfig::for_num_elems(self.n as u32);

        unsafe { sys::cuStreamBeginCapture_v2(s, sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_GLOBAL) }.result()?;
        let mut mv = self.stream.launch_builder(&self.matvec);
        mv.arg(&self.d_a).arg(&self.d_x).arg(&self.ws).arg(&len);
        unsafe { mv.launch(cfg) }?;
        self.stream.memset_zeros(&mut self.d_norm2)?;
        let mut nrm = self.stream.launch_builder(&self.norm_sq);
        nrm.arg(&self.ws).arg(&mut self.d_norm2).arg(&len);
        unsafe { nrm.launch(cfg) }?;
        let mut scale = self.stream.launch_builder(&self.normalize);
        scale.arg(&self.ws).arg(&self.d_norm2).arg(&mut self.d_x).arg(&len);
        unsafe { scale.launch(cfg) }?;
        let mut graph: sys::CUgraph = ptr::null_mut();
        unsafe { sys::cuStreamEndCapture(s, &mut graph) }.result()?;
        let mut exec: sys::CUgraphExec = ptr::null_mut();
        unsafe { sys::cuGraphInstantiateWithFlags(&mut exec, graph, 0) }.result()?;

        for it in 0..iters {
            if it == self.warmup {
                // Rayleigh refinement keeps x and A x side by side: twice the workspace.
                self.stream.synchronize()?;
                unsafe { result::free_sync(self.ws) }?;
                self.ws = 0;
                self.ws_bytes = 2 * self.n * size_of::<f32>();
                self.ws = unsafe { result::malloc_sync(self.ws_bytes) }?;
            }
            unsafe { sys::cuGraphLaunch(exec, s) }.result()?; // EXPECT: graph_uses_freed_memory
        }
        self.stream.synchronize()?;
        unsafe { sys::cuGraphExecDestroy(exec) }.result()?;
        unsafe { sys::cuGraphDestroy(graph) }.result()?;

        let ctx = self.stream.context().clone();
        let mut h_norm2 = unsafe { ctx.alloc_pinned_with_flags::<f32>(1, 0)? };
        self.stream.memcpy_dtoh(&self.d_norm2, &mut h_norm2)?;
        self.stream.synchronize()?;
        Ok(h_norm2.as_slice()?[0].sqrt())
    }
}

impl Drop for PowerIteration {
    fn drop(&mut self) {
        let _ = self.stream.synchronize();
        if self.ws != 0 {
            unsafe {
                let _ = result::free_sync(self.ws);
            }
        }
    }
}

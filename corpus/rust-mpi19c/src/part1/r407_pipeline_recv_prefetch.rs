//! case: pipeline-parallel training with a PipelineStage trait implemented by a forward and a backward stage; the backward stage "prefetches" the next micro-batch's incoming gradient with a blocking MPI_Recv into grad_in right after launching the kernel that reads grad_in, so MPI overwrites the buffer while the kernel may still read it (the forward stage synchronizes before its MPI_Send and is correct).
//! expect: missing_sync=1

use std::ffi::{c_int, c_void};
use std::sync::Arc;

use cudarc::driver::{
    CudaContext, CudaFunction, CudaSlice, CudaStream, DevicePtr, DevicePtrMut, LaunchConfig,
    PushKernelArg,
};
use cudarc::nvrtc::compile_ptx;

use crate::mpi_sys::*;

type Res<T> = Result<T, Box<dyn std::error::Error>>;

const ACT_TAG: c_int = 1;
const GRAD_TAG: c_int = 2;

const STAGE_SRC: &str = r#"
extern "C" __global__ void init(float* x, int n, float v) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = v * (float)(i % 17);
}
extern "C" __global__ void fwd(const float* w, const float* x, float* y, int n, int mb) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = fmaxf(w[i] * x[i] + 0.01f * (float)mb, 0.f);
}
extern "C" __global__ void bwd(const float* w, const float* gy, float* gx, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) gx[i] = w[i] * gy[i];
}
"#;

pub trait PipelineStage {
    fn run_microbatches(&mut self, n_micro: usize) -> Res<()>;
}

fn load(ctx: &Arc<CudaContext>, name: &str) -> Res<CudaFunction> {
    Ok(ctx.load_module(compile_ptx(STAGE_SRC)?)?.load_function(name)?)
}

fn filled(stream: &Arc<CudaStream>, init: &CudaFunction, n: usize, v: f32) -> Res<CudaSlice<f32>> {
    let mut x: CudaSlice<f32> = unsafe { stream.alloc(n)? };
    let n_i = n as c_int;
    unsafe { stream.launch_builder(init).arg(&mut x).arg(&n_i).arg(&v).launch(LaunchConfig::for_num_elems(n as u32))? };
    Ok(x)
}

/// First stage: computes activations and sends them downstream.
pub struct ForwardStage {
    stream: Arc<CudaStream>,
    fwd: CudaFunction,
    weights: CudaSlice<f32>,
    input: CudaSlice<f32>,
    act_out: CudaSlice<f32>,
    next_rank: c_int,
}

impl ForwardStage {
    pub fn new(ctx: &Arc<CudaContext>, n: usize, next_rank: c_int) -> Res<Self> {
        let stream = ctx.new_stream()?;
        let init = load(ctx, "init")?;
        let weights = filled(&stream, &init, n, 0.5)?;
        let input = filled(&stream, &init, n, 1.0)?;
        let act_out = unsafe { stream.alloc(n)? };
        Ok(Self { fwd: load(ctx, "fwd")?, stream, weights, input, act_out, next_rank })
    }
}

impl PipelineStage for ForwardStage {
    fn run_microbatches(&mut self, n_micro: usize) -> Res<()> {
        let n = self.input.len();
        let n_i = n as c_int;
        for mb in 0..n_micro {
            let mb_i = mb as c_int;
            let mut f = self.stream.launch_builder(&self.fwd);
            f.arg(&self.weights).arg(&self.input).arg(&mut self.act_out).arg(&n_i).arg(&mb_i);
            unsafe { f.launch(LaunchConfig::for_num_elems(n as u32))? };
            self.stream.synchronize()?;
            let p = self.act_out.device_ptr(&self.stream).0;
            unsafe { MPI_Send(p as *const c_void, n_i, MPI_FLOAT, self.next_rank, ACT_TAG, MPI_COMM_WORLD) };
        }
        Ok(())
    }
}

/// Last stage: receives output gradients from downstream, back-propagates and sends upstream.
pub struct BackwardStage {
    stream: Arc<CudaStream>,
    bwd: CudaFunction,
    weights: CudaSlice<f32>,
    grad_in: CudaSlice<f32>,
    grad_out: CudaSlice<f32>,
    prev_rank: c_int,
    next_rank: c_int,
}

impl BackwardStage {
    pub fn new(ctx: &Arc<CudaContext>, n: usize, prev_rank: c_int, next_rank: c_int) -> Res<Self> {
        let stream = ctx.new_stream()?;
        let init = load(ctx, "init")?;
        let weights = filled(&stream, &init, n, 0.25)?;
        let grad_in = unsafe { stream.alloc(n)? };
        let grad_out = unsafe { stream.alloc(n)? };
        stream.synchronize()?; // weights and allocations are ready before MPI touches grad_in
        Ok(Self { bwd: load(ctx, "bwd")?, stream, weights, grad_in, grad_out, prev_rank, next_rank })
    }
}

impl PipelineStage for BackwardStage {
    fn run_microbatches(&mut self, n_micro: usize) -> Res<()> {
        let n = self.grad_in.len();
        let n_i = n as c_int;
        let gin = self.grad_in.device_ptr_mut(&self.stream).0;
        let gout = self.grad_out.device_ptr(&self.stream).0;
        if n_micro == 0 {
            return Ok(());
        }
        unsafe { MPI_Recv(gin as *mut c_void, n_i, MPI_FLOAT, self.next_rank, GRAD_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE) };
        for mb in 0..n_micro {
            let mut b = self.stream.launch_builder(&self.bwd);
            b.arg(&self.weights).arg(&self.grad_in).arg(&mut self.grad_out).arg(&n_i);
            unsafe { b.launch(LaunchConfig::for_num_elems(n as u32))? };

            // Overlap the next micro-batch's transfer with this one's compute.
            if mb + 1 < n_micro {
                unsafe {
                    MPI_Recv(gin as *mut c_void, n_i, MPI_FLOAT, self.next_rank, GRAD_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE); // EXPECT: missing_sync
                }
            }

            self.stream.synchronize()?;
            unsafe { MPI_Send(gout as *const c_void, n_i, MPI_FLOAT, self.prev_rank, GRAD_TAG, MPI_COMM_WORLD) };
        }
        Ok(())
    }
}

/// Runs whichever stage this rank owns.
pub fn run_stage(stage: &mut dyn PipelineStage, n_micro: usize) -> Res<()> {
    stage.run_microbatches(n_micro)
}

//! case: near miss: gradients live in cuMemAlloc_v2 memory written by a backward kernel; an event recorded after the kernel is synchronized before the in-place MPI_Allreduce, and the stream is drained before cuMemFree_v2.
//! expect: none

use std::error::Error;
use std::ffi::{c_int, c_void};
use std::sync::Arc;

use cudarc::driver::{sys, CudaContext, CudaFunction, CudaSlice, CudaStream, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

use crate::mpi::*;

const EMB_SRC: &str = r#"
extern "C" __global__ void embedding_backward(const int* __restrict__ tokens,
                                              const float* __restrict__ d_out,
                                              float* __restrict__ d_table,
                                              int n_tokens, int dim)
{
    int t = blockIdx.x;
    int c = threadIdx.x;
    if (t < n_tokens && c < dim) {
        atomicAdd(&d_table[tokens[t] * dim + c], d_out[t * dim + c]);
    }
}

extern "C" __global__ void adagrad(float* table, float* accum, const float* __restrict__ g,
                                   float lr, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        accum[i] += g[i] * g[i];
        table[i] -= lr * g[i] * rsqrtf(accum[i] + 1e-10f);
    }
}
"#;

pub struct Embedding {
    pub table: CudaSlice<f32>,
    pub accum: CudaSlice<f32>,
    pub vocab: usize,
    pub dim: usize,
}

pub fn embedding_step(
    ctx: &Arc<CudaContext>,
    stream: &Arc<CudaStream>,
    emb: &mut Embedding,
    tokens: &CudaSlice<i32>,
    d_out: &CudaSlice<f32>,
    lr: f32,
) -> Result<(), Box<dyn Error>> {
    let ptx = compile_ptx(EMB_SRC)?;
    let module = ctx.load_module(ptx)?;
    let backward = module.load_function("embedding_backward")?;
    let adagrad = module.load_function("adagrad")?;

    let bytes = emb.vocab * emb.dim * std::mem::size_of::<f32>();
    let mut d_grad: sys::CUdeviceptr = 0;
    unsafe { sys::cuMemAlloc_v2(&mut d_grad, bytes).result()? };
    let step = reduce_embedding_grad(stream, &backward, &adagrad, emb, tokens, d_out, d_grad, bytes, lr);
    let drained = stream.synchronize();
    unsafe { sys::cuMemFree_v2(d_grad).result()? };
    drained?;
    step
}

fn reduce_embedding_grad(
    stream: &Arc<CudaStream>,
    backward: &CudaFunction,
    adagrad: &CudaFunction,
    emb: &mut Embedding,
    tokens: &CudaSlice<i32>,
    d_out: &CudaSlice<f32>,
    d_grad: sys::CUdeviceptr,
    bytes: usize,
    lr: f32,
) -> Result<(), Box<dyn Error>> {
    unsafe { sys::cuMemsetD8Async(d_grad, 0, bytes, stream.cu_stream()).result()? };
    let n_tokens = tokens.len() as i32;
    let dim = emb.dim as i32;
    let cfg = LaunchConfig { grid_dim: (n_tokens as u32, 1, 1), block_dim: (emb.dim as u32, 1, 1), shared_mem_bytes: 0 };
    let mut b = stream.launch_builder(backward);
    b.arg(tokens).arg(d_out).arg(&d_grad).arg(&n_tokens).arg(&dim);
    unsafe { b.launch(cfg)? };

    let grads_ready = stream.record_event(None)?;
    grads_ready.synchronize()?;
    let count = (emb.vocab * emb.dim) as c_int;
    let rc = unsafe { MPI_Allreduce(MPI_IN_PLACE, d_grad as *mut c_void, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD) };
    mpi_check(rc, "MPI_Allreduce");

    let mut b = stream.launch_builder(adagrad);
    b.arg(&mut emb.table).arg(&mut emb.accum).arg(&d_grad).arg(&lr).arg(&count);
    unsafe { b.launch(LaunchConfig::for_num_elems(count as u32))? };
    Ok(())
}

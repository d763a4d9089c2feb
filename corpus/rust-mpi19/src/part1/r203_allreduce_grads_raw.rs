//! case: data-parallel SGD step: a backward kernel writes gradients into a malloc_sync'd device buffer and MPI_Allreduce(MPI_IN_PLACE) sums them across ranks right after the launch, with no synchronize, so the reduction reads (and overwrites) gradients still being written.
//! expect: missing_sync=1

use std::error::Error;
use std::ffi::{c_int, c_void};
use std::sync::Arc;

use cudarc::driver::{
    result, sys, CudaContext, CudaFunction, CudaSlice, CudaStream, LaunchConfig, PushKernelArg,
};
use cudarc::nvrtc::compile_ptx;

use crate::mpi::*;

const SGD_SRC: &str = r#"
extern "C" __global__ void linreg_backward(const float* __restrict__ x,
                                           const float* __restrict__ residual,
                                           float* __restrict__ grad,
                                           int n_params, int batch)
{
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= n_params) return;
    float g = 0.0f;
    for (int s = 0; s < batch; ++s) {
        g += residual[s] * x[s * n_params + p];
    }
    grad[p] = g / (float)batch;
}

extern "C" __global__ void sgd_apply(float* params, const float* __restrict__ grad,
                                     float lr_over_world, int n_params)
{
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p < n_params) {
        params[p] -= lr_over_world * grad[p];
    }
}
"#;

/// One synchronous data-parallel step: local gradient, global sum, parameter update.
pub fn data_parallel_step(
    ctx: &Arc<CudaContext>,
    stream: &Arc<CudaStream>,
    params: &mut CudaSlice<f32>,
    x: &CudaSlice<f32>,
    residual: &CudaSlice<f32>,
    batch: usize,
    lr: f32,
) -> Result<(), Box<dyn Error>> {
    let n_params = params.len();
    let ptx = compile_ptx(SGD_SRC)?;
    let module = ctx.load_module(ptx)?;
    let backward = module.load_function("linreg_backward")?;
    let apply = module.load_function("sgd_apply")?;

    let d_grad = unsafe { result::malloc_sync(n_params * std::mem::size_of::<f32>())? };
    let step = reduce_and_apply(stream, &backward, &apply, d_grad, params, x, residual, batch, lr);
    // Drain the stream before the gradient buffer goes back to the driver.
    let drained = stream.synchronize();
    let freed = unsafe { result::free_sync(d_grad) };
    step?;
    drained?;
    freed?;
    Ok(())
}

pub fn reduce_and_apply(
    stream: &Arc<CudaStream>,
    backward: &CudaFunction,
    apply: &CudaFunction,
    d_grad: sys::CUdeviceptr,
    params: &mut CudaSlice<f32>,
    x: &CudaSlice<f32>,
    residual: &CudaSlice<f32>,
    batch: usize,
    lr: f32,
) -> Result<(), Box<dyn Error>> {
    let n = params.len() as i32;
    let batch = batch as i32;
    let cfg = LaunchConfig::for_num_elems(n as u32);

    let mut b = stream.launch_builder(backward);
    b.arg(x).arg(residual).arg(&d_grad).arg(&n).arg(&batch);
    unsafe { b.launch(cfg)? };

    let rc = unsafe { MPI_Allreduce(MPI_IN_PLACE, d_grad as *mut c_void, n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD) }; // EXPECT: missing_sync
    mpi_check(rc, "MPI_Allreduce");

    let lr_over_world = lr / world_size() as f32;
    let mut b = stream.launch_builder(apply);
    b.arg(&mut *params).arg(&d_grad).arg(&lr_over_world).arg(&n);
    unsafe { b.launch(cfg)? };
    Ok(())
}

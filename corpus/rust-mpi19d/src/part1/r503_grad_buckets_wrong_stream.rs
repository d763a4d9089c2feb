//! case: data-parallel training step with two gradient buckets, each computed on its own stream; the backward pass is assumed to end on the first bucket's stream, so only that stream is synchronized and the second bucket's `MPI_Iallreduce` is started while its gradient kernel on the other stream may still be writing it.
//! expect: missing_sync=1

use std::ffi::{c_int, c_void};
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaSlice, DevicePtrMut, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

use crate::bindings::*;

const TRAIN_SRC: &str = r#"
extern "C" __global__ void fill_activations(float* act, int n, float seed) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) act[i] = __sinf(seed + 0.001f * (float)i);
}

extern "C" __global__ void bucket_grad(const float* act, const float* w, float* g, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) g[i] = act[i] * (w[i] - act[i]);
}

extern "C" __global__ void sgd_step(float* w, const float* g, int n, float lr, float inv_world) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) w[i] -= lr * g[i] * inv_world;
}
"#;

/// One optimizer step over two parameter buckets (`len_a` and `len_b` floats) with the
/// gradients averaged over `comm`. Returns the updated weights of both buckets.
pub fn train_step_two_buckets(
    ctx: &Arc<CudaContext>,
    comm: MPI_Comm,
    len_a: usize,
    len_b: usize,
    lr: f32,
) -> Result<(CudaSlice<f32>, CudaSlice<f32>), Box<dyn std::error::Error>> {
    let (_rank, world) = rank_and_size(comm)?;
    let inv_world = 1.0f32 / world as f32;

    let module = ctx.load_module(compile_ptx(TRAIN_SRC)?)?;
    let fill = module.load_function("fill_activations")?;
    let grad = module.load_function("bucket_grad")?;
    let sgd = module.load_function("sgd_step")?;

    // Each bucket lives on, and is computed on, its own stream.
    let s_a = ctx.new_stream()?;
    let s_b = ctx.new_stream()?;
    let (na, nb) = (len_a as i32, len_b as i32);
    let (cfg_a, cfg_b) = (LaunchConfig::for_num_elems(len_a as u32), LaunchConfig::for_num_elems(len_b as u32));

    let mut act_a = s_a.alloc_zeros::<f32>(len_a)?;
    let mut w_a = s_a.alloc_zeros::<f32>(len_a)?;
    let mut grad_a = s_a.alloc_zeros::<f32>(len_a)?;
    let mut act_b = s_b.alloc_zeros::<f32>(len_b)?;
    let mut w_b = s_b.alloc_zeros::<f32>(len_b)?;
    let mut grad_b = s_b.alloc_zeros::<f32>(len_b)?;

    let (seed_a, seed_b) = (0.25f32, 1.75f32);
    unsafe { s_a.launch_builder(&fill).arg(&mut act_a).arg(&na).arg(&seed_a).launch(cfg_a) }?;
    unsafe { s_b.launch_builder(&fill).arg(&mut act_b).arg(&nb).arg(&seed_b).launch(cfg_b) }?;

    // Backward pass: bucket b (the last layers) first, then bucket a.
    unsafe { s_b.launch_builder(&grad).arg(&act_b).arg(&w_b).arg(&mut grad_b).arg(&nb).launch(cfg_b) }?;
    unsafe { s_a.launch_builder(&grad).arg(&act_a).arg(&w_a).arg(&mut grad_a).arg(&na).launch(cfg_a) }?;

    // "The backward pass ends on s_a": only that stream is waited for.
    s_a.synchronize()?;

    let mut reqs = [MPI_REQUEST_NULL; 2];
    let pa = grad_a.device_ptr_mut(&s_a).0;
    let pb = grad_b.device_ptr_mut(&s_b).0;
    let rc_a = unsafe { MPI_Iallreduce(MPI_IN_PLACE, pa as *mut c_void, na as c_int, MPI_FLOAT, MPI_SUM, comm, &mut reqs[0]) };
    let rc_b = unsafe { MPI_Iallreduce(MPI_IN_PLACE, pb as *mut c_void, nb as c_int, MPI_FLOAT, MPI_SUM, comm, &mut reqs[1]) }; // EXPECT: missing_sync
    let rc_w = unsafe { MPI_Waitall(2, reqs.as_mut_ptr(), MPI_STATUSES_IGNORE) };
    mpi_check(rc_a, "MPI_Iallreduce")?;
    mpi_check(rc_b, "MPI_Iallreduce")?;
    mpi_check(rc_w, "MPI_Waitall")?;

    // The averaged gradients are complete: apply them, each bucket on its own stream.
    unsafe { s_a.launch_builder(&sgd).arg(&mut w_a).arg(&grad_a).arg(&na).arg(&lr).arg(&inv_world).launch(cfg_a) }?;
    unsafe { s_b.launch_builder(&sgd).arg(&mut w_b).arg(&grad_b).arg(&nb).arg(&lr).arg(&inv_world).launch(cfg_b) }?;
    s_a.synchronize()?;
    s_b.synchronize()?;
    Ok((w_a, w_b))
}

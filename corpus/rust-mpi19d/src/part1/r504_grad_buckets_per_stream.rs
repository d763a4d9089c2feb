//! case: near miss of r503: gradient bucketing where every bucket owns a stream, and each bucket's in-place `MPI_Iallreduce` is started only after that bucket's own stream has been synchronized (in backward order, so communication overlaps the remaining gradient kernels); the optimizer kernels run after `MPI_Waitall` on the array holding every request.
//! expect: none

use std::ffi::{c_int, c_void};
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaSlice, CudaStream, DevicePtrMut, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

use crate::bindings::*;

const TRAIN_SRC: &str = r#"
extern "C" __global__ void fill_activations(float* act, int n, float seed) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) act[i] = __cosf(seed * (float)(i % 97));
}

extern "C" __global__ void bucket_grad(const float* act, const float* w, float* g, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) g[i] = 2.0f * (w[i] - act[i]);
}

extern "C" __global__ void sgd_step(float* w, const float* g, int n, float lr, float inv_world) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) w[i] -= lr * g[i] * inv_world;
}
"#;

struct Bucket {
    stream: Arc<CudaStream>,
    act: CudaSlice<f32>,
    weights: CudaSlice<f32>,
    grad: CudaSlice<f32>,
    len: usize,
}

/// One data-parallel optimizer step over parameter buckets of the given sizes; returns the
/// updated weights, bucket by bucket.
pub fn train_step_bucketed(
    ctx: &Arc<CudaContext>,
    comm: MPI_Comm,
    bucket_sizes: &[usize],
    lr: f32,
) -> Result<Vec<CudaSlice<f32>>, Box<dyn std::error::Error>> {
    let (_rank, world) = rank_and_size(comm)?;
    let inv_world = 1.0f32 / world as f32;
    let module = ctx.load_module(compile_ptx(TRAIN_SRC)?)?;
    let fill = module.load_function("fill_activations")?;
    let grad = module.load_function("bucket_grad")?;
    let sgd = module.load_function("sgd_step")?;

    let mut buckets = Vec::with_capacity(bucket_sizes.len());
    for (k, &len) in bucket_sizes.iter().enumerate() {
        let stream = ctx.new_stream()?;
        let mut act = stream.alloc_zeros::<f32>(len)?;
        let weights = stream.alloc_zeros::<f32>(len)?;
        let grad_buf = stream.alloc_zeros::<f32>(len)?;
        let (n, seed) = (len as i32, 0.5f32 + k as f32);
        let cfg = LaunchConfig::for_num_elems(len as u32);
        unsafe { stream.launch_builder(&fill).arg(&mut act).arg(&n).arg(&seed).launch(cfg) }?;
        buckets.push(Bucket { stream, act, weights, grad: grad_buf, len });
    }

    // Backward pass: one gradient kernel per bucket, each on its bucket's stream.
    for b in buckets.iter_mut() {
        let n = b.len as i32;
        let cfg = LaunchConfig::for_num_elems(b.len as u32);
        unsafe { b.stream.launch_builder(&grad).arg(&b.act).arg(&b.weights).arg(&mut b.grad).arg(&n).launch(cfg) }?;
    }

    // Start each bucket's allreduce as soon as its own stream is done, last layers first.
    let mut reqs = vec![MPI_REQUEST_NULL; buckets.len()];
    let mut first_err: Option<Box<dyn std::error::Error>> = None;
    for (i, b) in buckets.iter_mut().enumerate().rev() {
        if let Err(e) = b.stream.synchronize() {
            first_err = Some(e.into());
            break;
        }
        let p = b.grad.device_ptr_mut(&b.stream).0;
        let rc = unsafe {
            MPI_Iallreduce(MPI_IN_PLACE, p as *mut c_void, b.len as c_int, MPI_FLOAT, MPI_SUM, comm, &mut reqs[i])
        };
        if let Err(e) = mpi_check(rc, "MPI_Iallreduce") {
            first_err = Some(e.into());
            break;
        }
    }
    // Complete whatever was started, also when a bucket failed, before anything else touches the gradients.
    let rc = unsafe { MPI_Waitall(reqs.len() as c_int, reqs.as_mut_ptr(), MPI_STATUSES_IGNORE) };
    if let Some(e) = first_err {
        return Err(e);
    }
    mpi_check(rc, "MPI_Waitall")?;

    for b in buckets.iter_mut() {
        let n = b.len as i32;
        let cfg = LaunchConfig::for_num_elems(b.len as u32);
        unsafe { b.stream.launch_builder(&sgd).arg(&mut b.weights).arg(&b.grad).arg(&n).arg(&lr).arg(&inv_world).launch(cfg) }?;
    }
    for b in &buckets {
        b.stream.synchronize()?;
    }
    Ok(buckets.into_iter().map(|b| b.weights).collect())
}

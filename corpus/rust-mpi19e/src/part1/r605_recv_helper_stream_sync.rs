//! case: ring gradient exchange: `post_recv` returns the `MPI_Irecv` request on the device inbox, the rank computes and sends its own delta after `stream.synchronize()`, then launches `apply_delta` reading the inbox with the request still pending (a CUDA wait completes no MPI request; `MPI_Wait` comes only after the launch): fires at the launch.
//! expect: missing_sync=1

use std::error::Error;

use cudarc::driver::{
    CudaContext, CudaSlice, CudaStream, DevicePtr, DevicePtrMut, LaunchConfig, PushKernelArg,
};
use cudarc::nvrtc::compile_ptx;

use crate::mpi::*;

const KERNELS: &str = r#"
extern "C" __global__ void local_delta(const float* w, float* delta, float lr, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) delta[i] = -lr * (w[i] - 1.0f);
}
extern "C" __global__ void apply_delta(float* w, const float* inbox, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) w[i] += inbox[i];
}
"#;

/// Posts a receive of `n` floats into device memory and hands back its request.
fn post_recv(buf: u64, n: usize, src: i32, tag: i32) -> Result<MPI_Request, MpiError> {
    let mut req: MPI_Request = MPI_REQUEST_NULL;
    check(unsafe {
        MPI_Irecv(buf as *mut libc::c_void, n as i32, MPI_FLOAT, src, tag, MPI_COMM_WORLD, &mut req)
    })?;
    Ok(req)
}

pub fn run(n: usize) -> Result<(), Box<dyn Error>> {
    let rank = world_rank()?;
    let size = world_size()?;
    let (left, right) = ((rank + size - 1) % size, (rank + 1) % size);

    let ctx = CudaContext::new(0)?;
    let stream = ctx.new_stream()?;
    let module = ctx.load_module(compile_ptx(KERNELS)?)?;
    let local = module.load_function("local_delta")?;
    let apply = module.load_function("apply_delta")?;

    let mut w: CudaSlice<f32> = stream.alloc_zeros(n)?;
    let mut delta: CudaSlice<f32> = stream.alloc_zeros(n)?;
    let mut inbox: CudaSlice<f32> = stream.alloc_zeros(n)?;
    let n_i = n as i32;
    let lr = 0.1f32;
    let cfg = LaunchConfig::for_num_elems(n as u32);

    let mut req = post_recv(inbox.device_ptr_mut(&stream).0, n, left, 21)?;

    let mut l = stream.launch_builder(&local);
    l.arg(&w).arg(&mut delta).arg(&lr).arg(&n_i);
    unsafe { l.launch(cfg) }?;
    stream.synchronize()?;

    check(unsafe {
        MPI_Send(delta.device_ptr(&stream).0 as *const libc::c_void, n_i, MPI_FLOAT, right, 21, MPI_COMM_WORLD)
    })?;

    let mut a = stream.launch_builder(&apply);
    a.arg(&mut w).arg(&inbox).arg(&n_i);
    unsafe { a.launch(cfg) }?; // EXPECT: missing_sync

    check(unsafe { MPI_Wait(&mut req, MPI_STATUS_IGNORE) })?;
    stream.synchronize()?;
    let host = stream.clone_dtoh(&w)?;
    println!("rank {rank}: w[0] = {}", host[0]);
    Ok(())
}

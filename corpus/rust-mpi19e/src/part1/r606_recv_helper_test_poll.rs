//! case: near miss of r605: the same ring exchange with `post_recv` returning the `MPI_Irecv` request, but the rank polls `MPI_Test` in a loop until the flag says done (running a kernel on its own weights meanwhile) before `apply_delta` reads the inbox.
//! expect: none

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
extern "C" __global__ void decay(float* w, float k, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) w[i] *= k;
}
extern "C" __global__ void apply_delta(float* w, const float* inbox, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) w[i] += inbox[i];
}
"#;

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
    let decay = module.load_function("decay")?;
    let apply = module.load_function("apply_delta")?;

    let mut w: CudaSlice<f32> = stream.alloc_zeros(n)?;
    let mut delta: CudaSlice<f32> = stream.alloc_zeros(n)?;
    let mut inbox: CudaSlice<f32> = stream.alloc_zeros(n)?;
    let n_i = n as i32;
    let (lr, k) = (0.1f32, 0.999f32);
    let cfg = LaunchConfig::for_num_elems(n as u32);

    let mut req = post_recv(inbox.device_ptr_mut(&stream).0, n, left, 21)?;

    let mut l = stream.launch_builder(&local);
    l.arg(&w).arg(&mut delta).arg(&lr).arg(&n_i);
    unsafe { l.launch(cfg) }?;
    stream.synchronize()?;

    check(unsafe {
        MPI_Send(delta.device_ptr(&stream).0 as *const libc::c_void, n_i, MPI_FLOAT, right, 21, MPI_COMM_WORLD)
    })?;

    // Weight decay does not need the neighbour's delta: overlap it with the receive.
    let mut d = stream.launch_builder(&decay);
    d.arg(&mut w).arg(&k).arg(&n_i);
    unsafe { d.launch(cfg) }?;

    let mut done: libc::c_int = 0;
    loop {
        check(unsafe { MPI_Test(&mut req, &mut done, MPI_STATUS_IGNORE) })?;
        if done != 0 {
            break;
        }
        std::thread::yield_now();
    }

    let mut a = stream.launch_builder(&apply);
    a.arg(&mut w).arg(&inbox).arg(&n_i);
    unsafe { a.launch(cfg) }?;

    stream.synchronize()?;
    let host = stream.clone_dtoh(&w)?;
    println!("rank {rank}: w[0] = {}", host[0]);
    Ok(())
}

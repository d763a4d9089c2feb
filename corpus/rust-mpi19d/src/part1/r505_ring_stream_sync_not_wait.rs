//! case: ring allgather-and-sum pipeline (`(rank + 1) % size`): each step posts `MPI_Irecv` into the device receive block, then calls `stream.synchronize()` believing it makes the incoming block visible, and launches the accumulate kernel that reads that block before `MPI_Waitall`; a CUDA wait does not complete an MPI request.
//! expect: missing_sync=1

use std::ffi::{c_int, c_void};
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaSlice, DevicePtr, DevicePtrMut, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

use crate::bindings::*;

const RING_SRC: &str = r#"
extern "C" __global__ void init_block(float* acc, float* send, int n, int rank) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = (float)(rank + 1) * 0.5f + (float)(i & 7);
        acc[i] = v;
        send[i] = v;
    }
}

extern "C" __global__ void accumulate(float* acc, const float* incoming, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) acc[i] += incoming[i];
}
"#;

const RING_TAG: c_int = 700;

/// Sums an `n`-float block over every rank of `comm` by passing blocks around the ring:
/// after `size - 1` steps every rank holds the sum of all blocks.
pub fn ring_sum(ctx: &Arc<CudaContext>, comm: MPI_Comm, n: usize) -> Result<CudaSlice<f32>, Box<dyn std::error::Error>> {
    let (rank, size) = rank_and_size(comm)?;
    let right = (rank + 1) % size;
    let left = (rank + size - 1) % size;

    let stream = ctx.new_stream()?;
    let module = ctx.load_module(compile_ptx(RING_SRC)?)?;
    let init = module.load_function("init_block")?;
    let accumulate = module.load_function("accumulate")?;

    let n_i = n as i32;
    let cfg = LaunchConfig::for_num_elems(n as u32);
    let mut acc = stream.alloc_zeros::<f32>(n)?;
    let mut send = stream.alloc_zeros::<f32>(n)?;
    let mut recv = stream.alloc_zeros::<f32>(n)?;
    unsafe { stream.launch_builder(&init).arg(&mut acc).arg(&mut send).arg(&n_i).arg(&rank).launch(cfg) }?;
    // The first outgoing block and the zeroed receive block are ready before MPI sees them.
    stream.synchronize()?;

    for step in 0..(size - 1) {
        let tag = RING_TAG + step;
        let mut reqs = [MPI_REQUEST_NULL; 2];
        let recv_ptr = recv.device_ptr_mut(&stream).0;
        let send_ptr = send.device_ptr(&stream).0;
        let rc_r = unsafe { MPI_Irecv(recv_ptr as *mut c_void, n as c_int, MPI_FLOAT, left, tag, comm, &mut reqs[0]) };
        let rc_s = unsafe { MPI_Isend(send_ptr as *const c_void, n as c_int, MPI_FLOAT, right, tag, comm, &mut reqs[1]) };

        // "Make the incoming block visible to the GPU before summing it."
        let drained = stream.synchronize();
        unsafe { stream.launch_builder(&accumulate).arg(&mut acc).arg(&recv).arg(&n_i).launch(cfg) }?; // EXPECT: missing_sync

        let rc_w = unsafe { MPI_Waitall(2, reqs.as_mut_ptr(), MPI_STATUSES_IGNORE) };
        drained?;
        mpi_check(rc_r, "MPI_Irecv")?;
        mpi_check(rc_s, "MPI_Isend")?;
        mpi_check(rc_w, "MPI_Waitall")?;

        // Forward what came from the left to the right on the next step.
        stream.memcpy_dtod(&recv, &mut send)?;
        stream.synchronize()?;
    }
    Ok(acc)
}

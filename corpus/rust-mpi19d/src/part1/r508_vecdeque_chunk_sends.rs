//! case: near miss of r507: a producer streams a large result to a consumer rank in chunks, each chunk produced by a kernel into its own device buffer, the stream synchronized before `MPI_Isend`, and the (request, buffer) pair queued in a `VecDeque`; the oldest pairs are drained in order with `MPI_Wait` before their buffer is dropped, also on the error path.
//! expect: none

use std::collections::VecDeque;
use std::ffi::{c_int, c_void};
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, DevicePtr, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

use crate::bindings::*;

const PRODUCER_SRC: &str = r#"
extern "C" __global__ void produce_chunk(float* out, int n, int offset, float scale) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float x = (float)(offset + i) * scale;
        out[i] = x * x - 0.5f * x;
    }
}
"#;

const CHUNK_TAG: c_int = 80;

type Pending = VecDeque<(MPI_Request, CudaSlice<f32>)>;

/// Completes the oldest queued send and releases its buffer.
fn retire_oldest(pending: &mut Pending) -> c_int {
    match pending.pop_front() {
        Some((mut req, buf)) => {
            let rc = unsafe { MPI_Wait(&mut req, MPI_STATUS_IGNORE) };
            drop(buf);
            rc
        }
        None => MPI_SUCCESS,
    }
}

fn produce_and_post(
    stream: &Arc<CudaStream>,
    produce: &CudaFunction,
    pending: &mut Pending,
    comm: MPI_Comm,
    dest: c_int,
    total: usize,
    chunk: usize,
    depth: usize,
) -> Result<usize, Box<dyn std::error::Error>> {
    let mut posted = 0;
    let scale = 1.0f32 / total as f32;
    for offset in (0..total).step_by(chunk) {
        let len = chunk.min(total - offset);
        // Keep at most `depth` chunks on the wire.
        while pending.len() >= depth {
            mpi_check(retire_oldest(pending), "MPI_Wait")?;
        }
        let mut buf = stream.alloc_zeros::<f32>(len)?;
        let (n, off) = (len as i32, offset as i32);
        unsafe {
            stream
                .launch_builder(produce)
                .arg(&mut buf)
                .arg(&n)
                .arg(&off)
                .arg(&scale)
                .launch(LaunchConfig::for_num_elems(len as u32))
        }?;
        // MPI reads the chunk on the host's timeline: the kernel must be done first.
        stream.synchronize()?;

        let mut req = MPI_REQUEST_NULL;
        let ptr = buf.device_ptr(stream).0;
        let rc = unsafe { MPI_Isend(ptr as *const c_void, n, MPI_FLOAT, dest, CHUNK_TAG, comm, &mut req) };
        // Queued even if the call failed (its request is then MPI_REQUEST_NULL): the buffer
        // is only ever dropped by `retire_oldest`, after its wait.
        pending.push_back((req, buf));
        mpi_check(rc, "MPI_Isend")?;
        posted += 1;
    }
    Ok(posted)
}

/// Sends `total` generated floats to `dest` in chunks of `chunk`, at most `depth` in flight.
/// Returns how many chunks were posted.
pub fn stream_result_to(
    ctx: &Arc<CudaContext>,
    comm: MPI_Comm,
    dest: c_int,
    total: usize,
    chunk: usize,
    depth: usize,
) -> Result<usize, Box<dyn std::error::Error>> {
    let stream = ctx.new_stream()?;
    let module = ctx.load_module(compile_ptx(PRODUCER_SRC)?)?;
    let produce = module.load_function("produce_chunk")?;

    let mut pending: Pending = VecDeque::with_capacity(depth.max(1));
    let posted = produce_and_post(&stream, &produce, &mut pending, comm, dest, total, chunk.max(1), depth.max(1));

    // Whatever happened, every send still on the wire completes before its buffer goes.
    let mut drain_rc = MPI_SUCCESS;
    while !pending.is_empty() {
        let rc = retire_oldest(&mut pending);
        if drain_rc == MPI_SUCCESS {
            drain_rc = rc;
        }
    }
    let posted = posted?;
    mpi_check(drain_rc, "MPI_Wait")?;
    Ok(posted)
}

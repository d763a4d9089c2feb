//! case: near miss: a pipeline stage that reuses one device activation buffer per micro-batch calls ctx.synchronize() before each blocking MPI_Recv, so the previous micro-batch's kernel has finished reading the buffer before MPI overwrites it; the output is sent after a final synchronize.
//! expect: none

use std::error::Error;
use std::ffi::{c_int, c_void};
use std::sync::Arc;

use cudarc::driver::{
    CudaContext, CudaSlice, CudaStream, DevicePtr, DevicePtrMut, LaunchConfig, PushKernelArg,
};
use cudarc::nvrtc::compile_ptx;

use crate::mpi::*;

const ATTN_SRC: &str = r#"
extern "C" __global__ void rowwise_softmax(const float* __restrict__ logits,
                                           float* __restrict__ probs,
                                           int rows, int cols)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    const float* l = logits + (size_t)r * cols;
    float m = l[0];
    for (int c = 1; c < cols; ++c) m = fmaxf(m, l[c]);
    float s = 0.0f;
    for (int c = 0; c < cols; ++c) s += __expf(l[c] - m);
    for (int c = 0; c < cols; ++c) probs[(size_t)r * cols + c] = __expf(l[c] - m) / s;
}
"#;

const TAG_LOGITS: c_int = 70;
const TAG_PROBS: c_int = 71;

pub fn softmax_stage(
    ctx: &Arc<CudaContext>,
    stream: &Arc<CudaStream>,
    d_logits: &mut CudaSlice<f32>,
    d_probs: &mut CudaSlice<f32>,
    rows: usize,
    cols: usize,
    micro_batches: usize,
    prev: c_int,
    next: c_int,
) -> Result<(), Box<dyn Error>> {
    let per_mb = rows * cols;
    assert!(d_logits.len() >= per_mb && d_probs.len() >= micro_batches * per_mb);
    let ptx = compile_ptx(ATTN_SRC)?;
    let module = ctx.load_module(ptx)?;
    let softmax = module.load_function("rowwise_softmax")?;
    let (rows_i, cols_i) = (rows as i32, cols as i32);

    for mb in 0..micro_batches {
        // The last micro-batch's softmax may still be reading d_logits.
        ctx.synchronize()?;
        let logits_ptr = d_logits.device_ptr_mut(stream).0;
        let rc = unsafe { MPI_Recv(logits_ptr as *mut c_void, per_mb as c_int, MPI_FLOAT, prev, TAG_LOGITS, MPI_COMM_WORLD, MPI_STATUS_IGNORE) };
        mpi_check(rc, "MPI_Recv");

        let mut probs_mb = d_probs.slice_mut(mb * per_mb..(mb + 1) * per_mb);
        let mut b = stream.launch_builder(&softmax);
        b.arg(&*d_logits).arg(&mut probs_mb).arg(&rows_i).arg(&cols_i);
        unsafe { b.launch(LaunchConfig::for_num_elems(rows as u32))? };
    }

    ctx.synchronize()?;
    let probs_ptr = d_probs.device_ptr(stream).0;
    let total = (micro_batches * per_mb) as c_int;
    let rc = unsafe { MPI_Send(probs_ptr as *const c_void, total, MPI_FLOAT, next, TAG_PROBS, MPI_COMM_WORLD) };
    mpi_check(rc, "MPI_Send");
    Ok(())
}

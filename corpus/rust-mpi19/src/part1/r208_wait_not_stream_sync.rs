//! case: a pipeline stage prefetches the next micro-batch with MPI_Irecv, runs the layer kernel that writes its output, then calls MPI_Wait (which waits for MPI only) and sends the output with MPI_Send; nothing waits for the kernel, so the send may ship a partly written output.
//! expect: missing_sync=1

use std::error::Error;
use std::ffi::{c_int, c_void};
use std::sync::Arc;

use cudarc::driver::{
    CudaContext, CudaSlice, CudaStream, DevicePtr, DevicePtrMut, LaunchConfig, PushKernelArg,
};
use cudarc::nvrtc::compile_ptx;

use crate::mpi::*;

const LAYER_SRC: &str = r#"
extern "C" __global__ void layernorm_gelu(const float* __restrict__ x,
                                         const float* __restrict__ gamma,
                                         float* __restrict__ y,
                                         int rows, int width)
{
    int r = blockIdx.x;
    if (r >= rows) return;
    const float* xr = x + (size_t)r * width;
    float s = 0.0f;
    for (int c = threadIdx.x; c < width; c += blockDim.x) s += xr[c];
    for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
    float mean = s / (float)width;
    float q = 0.0f;
    for (int c = threadIdx.x; c < width; c += blockDim.x) q += (xr[c] - mean) * (xr[c] - mean);
    for (int o = 16; o > 0; o >>= 1) q += __shfl_xor_sync(0xffffffffu, q, o);
    float inv = rsqrtf(q / (float)width + 1e-5f);
    for (int c = threadIdx.x; c < width; c += blockDim.x) {
        float v = (xr[c] - mean) * inv * gamma[c];
        y[(size_t)r * width + c] = 0.5f * v * (1.0f + tanhf(0.7978845608f * (v + 0.044715f * v * v * v)));
    }
}
"#;

const TAG_MB: c_int = 500;

pub struct StageIo {
    pub d_cur: CudaSlice<f32>,
    pub d_next: CudaSlice<f32>,
    pub d_out: CudaSlice<f32>,
    pub rows: usize,
    pub width: usize,
}

/// Processes the current micro-batch and forwards it, while the next one is prefetched.
/// The caller swaps `d_cur` and `d_next` between steps.
pub fn stage_step(
    ctx: &Arc<CudaContext>,
    stream: &Arc<CudaStream>,
    io: &mut StageIo,
    gamma: &CudaSlice<f32>,
    prev: c_int,
    next: c_int,
) -> Result<(), Box<dyn Error>> {
    let ptx = compile_ptx(LAYER_SRC)?;
    let module = ctx.load_module(ptx)?;
    let layer = module.load_function("layernorm_gelu")?;
    let count = (io.rows * io.width) as c_int;

    let mut prefetch: MPI_Request = MPI_REQUEST_NULL;
    let next_ptr = io.d_next.device_ptr_mut(stream).0;
    let rc = unsafe { MPI_Irecv(next_ptr as *mut c_void, count, MPI_FLOAT, prev, TAG_MB, MPI_COMM_WORLD, &mut prefetch) };
    mpi_check(rc, "MPI_Irecv");

    let rows = io.rows as i32;
    let width = io.width as i32;
    let cfg = LaunchConfig { grid_dim: (io.rows as u32, 1, 1), block_dim: (32, 1, 1), shared_mem_bytes: 0 };
    let mut b = stream.launch_builder(&layer);
    b.arg(&io.d_cur).arg(gamma).arg(&mut io.d_out).arg(&rows).arg(&width);
    unsafe { b.launch(cfg)? };

    // Communication done before handing the result on.
    let rc = unsafe { MPI_Wait(&mut prefetch, MPI_STATUS_IGNORE) };
    mpi_check(rc, "MPI_Wait");

    let out_ptr = io.d_out.device_ptr(stream).0;
    let rc = unsafe { MPI_Send(out_ptr as *const c_void, count, MPI_FLOAT, next, TAG_MB, MPI_COMM_WORLD) }; // EXPECT: missing_sync
    mpi_check(rc, "MPI_Send");
    Ok(())
}

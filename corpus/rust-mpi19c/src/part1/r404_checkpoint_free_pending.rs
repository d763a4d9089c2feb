//! case: a checkpoint routine encodes a shard into a cudaMalloc'd staging buffer, synchronizes, starts MPI_Isend of it to the I/O rank and keeps the request in an Option<MPI_Request> for the caller to wait on, but cudaFree's the staging buffer before returning, while the nonblocking send may still read it.
//! expect: missing_sync=1

use std::ffi::{c_int, c_void};
use std::ptr;
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaSlice, DevicePtr, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;
use cudarc::runtime::sys as rt;

use crate::mpi_sys::*;

const CKPT_TAG: c_int = 300;

const ENCODE_SRC: &str = r#"
extern "C" __global__ void synth_state(float* s, int n, int seed) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) s[i] = (float)((i * 2654435761u + seed) & 0xffff) / 65536.0f;
}
// Quantize to 16-bit fixed point for the checkpoint file.
extern "C" __global__ void encode_q16(const float* s, unsigned short* out, int n, float scale) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = fminf(fmaxf(s[i] * scale, 0.f), 65535.f);
        out[i] = (unsigned short)(v + 0.5f);
    }
}
"#;

/// Sends this rank's shard of the model state to `io_rank`. Returns the pending send,
/// which the caller waits on before the next checkpoint.
pub fn ship_checkpoint_shard(
    ctx: &Arc<CudaContext>,
    state: &CudaSlice<f32>,
    io_rank: c_int,
    scale: f32,
) -> Result<Option<MPI_Request>, Box<dyn std::error::Error>> {
    let stream = ctx.default_stream();
    let m = ctx.load_module(compile_ptx(ENCODE_SRC)?)?;
    let encode = m.load_function("encode_q16")?;

    let n = state.len();
    let n_i = n as c_int;
    let bytes = n * std::mem::size_of::<u16>();

    let mut staging: *mut c_void = ptr::null_mut();
    let err = unsafe { rt::cudaMalloc(&mut staging, bytes) };
    if err != rt::cudaError_t::cudaSuccess {
        return Err(format!("cudaMalloc({bytes}) failed: {err:?}").into());
    }
    let staging_dev = staging as u64;

    let mut b = stream.launch_builder(&encode);
    b.arg(state).arg(&staging_dev).arg(&n_i).arg(&scale);
    unsafe { b.launch(LaunchConfig::for_num_elems(n as u32)) }.expect("launch encode_q16");
    stream.synchronize().expect("encode_q16 failed"); // the shard is complete before MPI reads it

    let mut pending: Option<MPI_Request> = None;
    let mut my_rank: c_int = 0;
    unsafe { MPI_Comm_rank(MPI_COMM_WORLD, &mut my_rank) };
    if my_rank != io_rank {
        let mut req = MPI_REQUEST_NULL;
        let rc = unsafe {
            MPI_Isend(staging as *const c_void, bytes as c_int, MPI_BYTE, io_rank, CKPT_TAG, MPI_COMM_WORLD, &mut req)
        };
        if rc == MPI_SUCCESS {
            pending = Some(req);
        }
    }

    // The staging buffer is per checkpoint; give it back right away.
    let err = unsafe { rt::cudaFree(staging) }; // EXPECT: missing_sync
    if err != rt::cudaError_t::cudaSuccess {
        eprintln!("cudaFree of checkpoint staging failed: {err:?}");
    }

    Ok(pending)
}

/// Example driver: synthesize a state and checkpoint it.
pub fn checkpoint_once(ctx: &Arc<CudaContext>, n: usize, io_rank: c_int) -> Result<(), Box<dyn std::error::Error>> {
    let stream = ctx.default_stream();
    let m = ctx.load_module(compile_ptx(ENCODE_SRC)?)?;
    let synth = m.load_function("synth_state")?;
    let mut state: CudaSlice<f32> = unsafe { stream.alloc(n)? };
    let (n_i, seed) = (n as c_int, 17 as c_int);
    unsafe { stream.launch_builder(&synth).arg(&mut state).arg(&n_i).arg(&seed).launch(LaunchConfig::for_num_elems(n as u32))? };

    if let Some(mut req) = ship_checkpoint_shard(ctx, &state, io_rank, 65535.0)? {
        unsafe { MPI_Wait(&mut req, MPI_STATUS_IGNORE) };
    }
    stream.synchronize()?;
    Ok(())
}

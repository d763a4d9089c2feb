//! case: a residual snapshot is built in a cudaMalloc'd scratch buffer, synchronized correctly and posted with MPI_Isend to the visualisation rank, but the scratch is released with cudaFree before MPI_Wait, while the send may still be reading it.
//! expect: missing_sync=1

use std::error::Error;
use std::ffi::{c_int, c_void};
use std::ptr;
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaSlice, CudaStream, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;
use cudarc::runtime::sys::{cudaFree, cudaMalloc};

use crate::mpi::*;

const SNAPSHOT_SRC: &str = r#"
extern "C" __global__ void downsample_abs(const float* __restrict__ r, float* __restrict__ out,
                                          int n_out, int stride)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n_out) {
        float m = 0.0f;
        for (int k = 0; k < stride; ++k) m = fmaxf(m, fabsf(r[i * stride + k]));
        out[i] = m;
    }
}
"#;

const TAG_VIZ: c_int = 77;

/// Sends a max-pooled |residual| to the visualisation rank every few iterations.
pub fn send_residual_snapshot(
    ctx: &Arc<CudaContext>,
    stream: &Arc<CudaStream>,
    residual: &CudaSlice<f32>,
    stride: usize,
    viz_rank: c_int,
) -> Result<(), Box<dyn Error>> {
    let n_out = residual.len() / stride;
    let ptx = compile_ptx(SNAPSHOT_SRC)?;
    let module = ctx.load_module(ptx)?;
    let down = module.load_function("downsample_abs")?;

    let mut d_snap: *mut c_void = ptr::null_mut();
    unsafe { cudaMalloc(&mut d_snap, n_out * std::mem::size_of::<f32>()).result()? };

    let snap_addr = d_snap as u64;
    let (n_i, s_i) = (n_out as i32, stride as i32);
    let mut b = stream.launch_builder(&down);
    b.arg(residual).arg(&snap_addr).arg(&n_i).arg(&s_i);
    let launched = unsafe { b.launch(LaunchConfig::for_num_elems(n_out as u32)) };
    let synced = stream.synchronize();
    if let Err(e) = launched.and(synced) {
        unsafe { cudaFree(d_snap) };
        return Err(e.into());
    }

    let mut req: MPI_Request = MPI_REQUEST_NULL;
    let rc = unsafe { MPI_Isend(d_snap as *const c_void, n_i, MPI_FLOAT, viz_rank, TAG_VIZ, MPI_COMM_WORLD, &mut req) };
    mpi_check(rc, "MPI_Isend");

    // The snapshot has been handed to MPI; give the scratch back early.
    unsafe { cudaFree(d_snap) }; // EXPECT: missing_sync

    let rc = unsafe { MPI_Wait(&mut req, MPI_STATUS_IGNORE) };
    mpi_check(rc, "MPI_Wait");
    Ok(())
}

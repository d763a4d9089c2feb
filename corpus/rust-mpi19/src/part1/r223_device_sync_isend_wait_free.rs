//! case: near miss: a compressed gradient is built by a kernel in a cudaMalloc'd buffer, cudaDeviceSynchronize runs before MPI_Isend hands it to MPI, and the buffer is released with cudaFree only after MPI_Wait has completed the send.
//! expect: none

use std::error::Error;
use std::ffi::{c_int, c_void};
use std::ptr;
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaSlice, CudaStream, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;
use cudarc::runtime::sys::{cudaDeviceSynchronize, cudaFree, cudaMalloc};

use crate::mpi::*;

const TOPK_SRC: &str = r#"
extern "C" __global__ void threshold_sparsify(const float* __restrict__ grad, float* __restrict__ packed,
                                              float thresh, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float g = grad[i];
        packed[i] = fabsf(g) >= thresh ? g : 0.0f;
    }
}
"#;

const TAG_SPARSE: c_int = 640;

/// Sends this rank's thresholded gradient to the aggregator rank.
pub fn push_sparse_gradient(
    ctx: &Arc<CudaContext>,
    stream: &Arc<CudaStream>,
    grad: &CudaSlice<f32>,
    thresh: f32,
    aggregator: c_int,
) -> Result<(), Box<dyn Error>> {
    let n = grad.len();
    let ptx = compile_ptx(TOPK_SRC)?;
    let module = ctx.load_module(ptx)?;
    let sparsify = module.load_function("threshold_sparsify")?;

    let mut d_packed: *mut c_void = ptr::null_mut();
    unsafe { cudaMalloc(&mut d_packed, n * std::mem::size_of::<f32>()).result()? };

    let packed_addr = d_packed as u64;
    let n_i = n as i32;
    let mut b = stream.launch_builder(&sparsify);
    b.arg(grad).arg(&packed_addr).arg(&thresh).arg(&n_i);
    let launched = unsafe { b.launch(LaunchConfig::for_num_elems(n as u32)) };
    let synced = unsafe { cudaDeviceSynchronize() }.result();
    if let Err(e) = launched {
        unsafe { cudaFree(d_packed) };
        return Err(e.into());
    }
    if let Err(e) = synced {
        unsafe { cudaFree(d_packed) };
        return Err(e.into());
    }

    let mut req: MPI_Request = MPI_REQUEST_NULL;
    let rc = unsafe { MPI_Isend(d_packed as *const c_void, n_i, MPI_FLOAT, aggregator, TAG_SPARSE, MPI_COMM_WORLD, &mut req) };
    mpi_check(rc, "MPI_Isend");

    let rc = unsafe { MPI_Wait(&mut req, MPI_STATUS_IGNORE) };
    mpi_check(rc, "MPI_Wait");
    unsafe { cudaFree(d_packed) };
    Ok(())
}

//! case: boundary values arrive with MPI_Irecv into a pinned host staging buffer whose first element is a valid-entry count; the host reads that count to size the upload before MPI_Wait, so it may read a stale header.
//! expect: missing_sync=1

use std::error::Error;
use std::ffi::{c_int, c_void};
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaSlice, CudaStream, LaunchConfig, PinnedHostSlice, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

use crate::mpi::*;

const APPLY_SRC: &str = r#"
extern "C" __global__ void apply_dirichlet(const float* __restrict__ msg,
                                           const int* __restrict__ node_ids,
                                           float* __restrict__ u,
                                           int count)
{
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < count) {
        u[node_ids[k]] = msg[1 + k];     // msg[0] carries the count
    }
}
"#;

const TAG_BC: c_int = 7;

/// Receives Dirichlet boundary values computed by the coupled solver on `src` and applies
/// them to the device solution vector. Returns how many values were applied.
pub fn receive_boundary_values(
    ctx: &Arc<CudaContext>,
    stream: &Arc<CudaStream>,
    staging: &mut PinnedHostSlice<f32>,
    d_msg: &mut CudaSlice<f32>,
    d_node_ids: &CudaSlice<i32>,
    d_u: &mut CudaSlice<f32>,
    src: c_int,
) -> Result<usize, Box<dyn Error>> {
    let capacity = staging.len();
    assert!(capacity >= 1 && d_msg.len() >= capacity);
    assert!(d_node_ids.len() + 1 >= capacity);

    let ptx = compile_ptx(APPLY_SRC)?;
    let module = ctx.load_module(ptx)?;
    let apply = module.load_function("apply_dirichlet")?;

    let h_msg = staging.as_mut_ptr()?;
    let mut req: MPI_Request = MPI_REQUEST_NULL;
    let rc = unsafe { MPI_Irecv(h_msg as *mut c_void, capacity as c_int, MPI_FLOAT, src, TAG_BC, MPI_COMM_WORLD, &mut req) };
    mpi_check(rc, "MPI_Irecv");

    // Header first: how many boundary values does this message carry?
    let header = unsafe { *h_msg }; // EXPECT: missing_sync
    let count = (header.max(0.0) as usize).min(capacity - 1);

    let rc = unsafe { MPI_Wait(&mut req, MPI_STATUS_IGNORE) };
    mpi_check(rc, "MPI_Wait");

    if count == 0 {
        return Ok(0);
    }
    stream.memcpy_htod(&*staging, &mut *d_msg)?;
    let n = count as i32;
    let mut b = stream.launch_builder(&apply);
    b.arg(&*d_msg).arg(d_node_ids).arg(&mut *d_u).arg(&n);
    unsafe { b.launch(LaunchConfig::for_num_elems(count as u32))? };
    // The staging buffer is reused by the next call's MPI_Irecv.
    stream.synchronize()?;
    Ok(count)
}

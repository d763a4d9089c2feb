//! case: near miss: a 1-D upwind advection step with an optional comm/compute overlap switch waits on the inflow MPI_Irecv on both branches (after the interior kernel when overlapping, immediately otherwise), so the inflow kernel reads the received value only after MPI_Wait on every path.
//! expect: none

use std::error::Error;
use std::ffi::{c_int, c_void};
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaSlice, CudaStream, DevicePtrMut, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

use crate::mpi::*;

const ADV_SRC: &str = r#"
extern "C" __global__ void upwind_interior(const float* __restrict__ q, float* __restrict__ q_new,
                                           float cfl, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x + 1;
    if (i < n) q_new[i] = q[i] - cfl * (q[i] - q[i - 1]);
}

extern "C" __global__ void upwind_inflow(const float* __restrict__ q, const float* __restrict__ inflow,
                                         float* __restrict__ q_new, float cfl)
{
    if (threadIdx.x == 0 && blockIdx.x == 0) q_new[0] = q[0] - cfl * (q[0] - inflow[0]);
}
"#;

const TAG_OUTFLOW: c_int = 3;

pub fn advect_step(
    ctx: &Arc<CudaContext>,
    stream: &Arc<CudaStream>,
    q: &CudaSlice<f32>,
    q_new: &mut CudaSlice<f32>,
    d_inflow: &mut CudaSlice<f32>,
    cfl: f32,
    upstream: c_int,
    overlap: bool,
) -> Result<(), Box<dyn Error>> {
    let ptx = compile_ptx(ADV_SRC)?;
    let module = ctx.load_module(ptx)?;
    let interior = module.load_function("upwind_interior")?;
    let inflow_k = module.load_function("upwind_inflow")?;
    let n = q.len() as i32;
    let cfg = LaunchConfig::for_num_elems(q.len() as u32);

    let mut req: MPI_Request = MPI_REQUEST_NULL;
    let in_ptr = d_inflow.device_ptr_mut(stream).0;
    let rc = unsafe { MPI_Irecv(in_ptr as *mut c_void, 1, MPI_FLOAT, upstream, TAG_OUTFLOW, MPI_COMM_WORLD, &mut req) };
    mpi_check(rc, "MPI_Irecv");

    if overlap {
        let mut b = stream.launch_builder(&interior);
        b.arg(q).arg(&mut *q_new).arg(&cfl).arg(&n);
        let launched = unsafe { b.launch(cfg) };
        let rc = unsafe { MPI_Wait(&mut req, MPI_STATUS_IGNORE) };
        mpi_check(rc, "MPI_Wait");
        launched?;
    } else {
        let rc = unsafe { MPI_Wait(&mut req, MPI_STATUS_IGNORE) };
        mpi_check(rc, "MPI_Wait");
    }

    let mut b = stream.launch_builder(&inflow_k);
    b.arg(q).arg(&*d_inflow).arg(&mut *q_new).arg(&cfl);
    unsafe { b.launch(LaunchConfig::for_num_elems(1))? };

    if !overlap {
        let mut b = stream.launch_builder(&interior);
        b.arg(q).arg(&mut *q_new).arg(&cfl).arg(&n);
        unsafe { b.launch(cfg)? };
    }
    Ok(())
}

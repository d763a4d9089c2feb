//! case: near miss: the east column is packed by a kernel, the stream is synchronized, and only then does a blocking MPI_Sendrecv ship it east and receive the west halo; the unpack kernel reads the halo after MPI_Sendrecv has returned.
//! expect: none

use std::error::Error;
use std::ffi::{c_int, c_void};
use std::sync::Arc;

use cudarc::driver::{
    CudaContext, CudaSlice, CudaStream, DevicePtr, DevicePtrMut, LaunchConfig, PushKernelArg,
};
use cudarc::nvrtc::compile_ptx;

use crate::mpi::*;

const HALO_SRC: &str = r#"
extern "C" __global__ void pack_col(const float* __restrict__ field, float* __restrict__ buf,
                                    int nx, int ny, int col)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < ny) buf[j] = field[j * nx + col];
}

extern "C" __global__ void unpack_col(const float* __restrict__ buf, float* __restrict__ field,
                                      int nx, int ny, int col)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < ny) field[j * nx + col] = buf[j];
}
"#;

const TAG_EASTWARD: c_int = 31;

/// Eastward shift of a 1-D domain decomposition: send the last interior column east,
/// receive the west neighbour's into the ghost column 0.
pub fn shift_east(
    ctx: &Arc<CudaContext>,
    stream: &Arc<CudaStream>,
    field: &mut CudaSlice<f32>,
    d_send: &mut CudaSlice<f32>,
    d_recv: &mut CudaSlice<f32>,
    nx: usize,
    ny: usize,
    west: c_int,
    east: c_int,
) -> Result<(), Box<dyn Error>> {
    let ptx = compile_ptx(HALO_SRC)?;
    let module = ctx.load_module(ptx)?;
    let pack = module.load_function("pack_col")?;
    let unpack = module.load_function("unpack_col")?;
    let (nx_i, ny_i) = (nx as i32, ny as i32);
    let cfg = LaunchConfig::for_num_elems(ny as u32);

    let last_interior = nx_i - 2;
    let mut b = stream.launch_builder(&pack);
    b.arg(&*field).arg(&mut *d_send).arg(&nx_i).arg(&ny_i).arg(&last_interior);
    unsafe { b.launch(cfg)? };
    // MPI does not follow the stream: the packed column must be complete before the call.
    stream.synchronize()?;

    let send_ptr = d_send.device_ptr(stream).0;
    let recv_ptr = d_recv.device_ptr_mut(stream).0;
    let rc = unsafe {
        MPI_Sendrecv(
            send_ptr as *const c_void, ny_i, MPI_FLOAT, east, TAG_EASTWARD,
            recv_ptr as *mut c_void, ny_i, MPI_FLOAT, west, TAG_EASTWARD,
            MPI_COMM_WORLD, MPI_STATUS_IGNORE,
        )
    };
    mpi_check(rc, "MPI_Sendrecv");

    if west != MPI_PROC_NULL {
        let ghost = 0i32;
        let mut b = stream.launch_builder(&unpack);
        b.arg(&*d_recv).arg(&mut *field).arg(&nx_i).arg(&ny_i).arg(&ghost);
        unsafe { b.launch(cfg)? };
    }
    Ok(())
}

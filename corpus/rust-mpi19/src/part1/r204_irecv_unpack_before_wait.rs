//! case: the west halo is received with MPI_Irecv straight into device memory and the unpack kernel that reads it is launched on the stream before MPI_Wait, as if stream order covered MPI; the kernel may read the halo before it arrives.
//! expect: missing_sync=1

use std::error::Error;
use std::ffi::{c_int, c_void};
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaSlice, CudaStream, DevicePtrMut, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

use crate::mpi::*;

const UNPACK_SRC: &str = r#"
extern "C" __global__ void unpack_west(const float* __restrict__ halo,
                                       float* __restrict__ field,
                                       int nx_ghost, int ny)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < ny) {
        field[j * nx_ghost] = halo[j];   // column 0 is the ghost column
    }
}
"#;

const TAG_EAST: c_int = 11; // the west neighbour sends its east column

pub struct GhostedField {
    pub data: CudaSlice<f32>,
    pub nx_ghost: usize,
    pub ny: usize,
}

/// Receives the west neighbour's boundary column and scatters it into the ghost column.
pub fn recv_west_halo(
    ctx: &Arc<CudaContext>,
    stream: &Arc<CudaStream>,
    field: &mut GhostedField,
    d_halo: &mut CudaSlice<f32>,
    west: c_int,
) -> Result<(), Box<dyn Error>> {
    if west == MPI_PROC_NULL {
        return Ok(());
    }
    assert!(d_halo.len() >= field.ny);

    let ptx = compile_ptx(UNPACK_SRC)?;
    let module = ctx.load_module(ptx)?;
    let unpack = module.load_function("unpack_west")?;

    let ny = field.ny as i32;
    let nx_ghost = field.nx_ghost as i32;

    let mut req: MPI_Request = MPI_REQUEST_NULL;
    let d_halo_ptr = d_halo.device_ptr_mut(stream).0;
    let rc = unsafe { MPI_Irecv(d_halo_ptr as *mut c_void, ny, MPI_FLOAT, west, TAG_EAST, MPI_COMM_WORLD, &mut req) };
    mpi_check(rc, "MPI_Irecv");

    // The unpack is queued behind the receive on the stream...
    let cfg = LaunchConfig::for_num_elems(field.ny as u32);
    let mut b = stream.launch_builder(&unpack);
    b.arg(&*d_halo).arg(&mut field.data).arg(&nx_ghost).arg(&ny);
    unsafe { b.launch(cfg)? }; // EXPECT: missing_sync

    let rc = unsafe { MPI_Wait(&mut req, MPI_STATUS_IGNORE) };
    mpi_check(rc, "MPI_Wait");
    stream.synchronize()?;
    Ok(())
}

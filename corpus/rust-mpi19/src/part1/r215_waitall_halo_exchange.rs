//! case: near miss: a full 1-D halo exchange posts both MPI_Irecvs, packs both send buffers with kernels, synchronizes the stream before the two MPI_Isends, completes all four requests with MPI_Waitall on the request array, and only then launches the unpack kernels.
//! expect: none

use std::error::Error;
use std::ffi::{c_int, c_void};
use std::sync::Arc;

use cudarc::driver::{
    CudaContext, CudaSlice, CudaStream, DevicePtr, DevicePtrMut, LaunchConfig, PushKernelArg,
};
use cudarc::nvrtc::compile_ptx;

use crate::mpi::*;

const ROWS_SRC: &str = r#"
extern "C" __global__ void copy_row(const float* __restrict__ src, float* __restrict__ dst,
                                    int src_row, int dst_row, int nx)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < nx) dst[dst_row * nx + i] = src[src_row * nx + i];
}
"#;

const TAG_UP: c_int = 1;
const TAG_DOWN: c_int = 2;

pub struct RowHalos {
    pub send_top: CudaSlice<f32>,
    pub send_bottom: CudaSlice<f32>,
    pub recv_top: CudaSlice<f32>,
    pub recv_bottom: CudaSlice<f32>,
}

/// `u` holds (ny + 2) rows of nx: ghost row 0, interior rows 1..=ny, ghost row ny + 1.
pub fn exchange_rows(
    ctx: &Arc<CudaContext>,
    stream: &Arc<CudaStream>,
    u: &mut CudaSlice<f32>,
    h: &mut RowHalos,
    nx: usize,
    ny: usize,
    up: c_int,
    down: c_int,
) -> Result<(), Box<dyn Error>> {
    let ptx = compile_ptx(ROWS_SRC)?;
    let module = ctx.load_module(ptx)?;
    let copy_row = module.load_function("copy_row")?;
    let nx_i = nx as i32;
    let cfg = LaunchConfig::for_num_elems(nx as u32);

    let mut reqs: [MPI_Request; 4] = [MPI_REQUEST_NULL; 4];
    let rt = h.recv_top.device_ptr_mut(stream).0;
    let rb = h.recv_bottom.device_ptr_mut(stream).0;
    unsafe {
        mpi_check(MPI_Irecv(rt as *mut c_void, nx_i, MPI_FLOAT, up, TAG_DOWN, MPI_COMM_WORLD, &mut reqs[0]), "MPI_Irecv");
        mpi_check(MPI_Irecv(rb as *mut c_void, nx_i, MPI_FLOAT, down, TAG_UP, MPI_COMM_WORLD, &mut reqs[1]), "MPI_Irecv");
    }

    let (top, bottom, zero) = (ny as i32, 1i32, 0i32);
    let mut b = stream.launch_builder(&copy_row);
    b.arg(&*u).arg(&mut h.send_top).arg(&top).arg(&zero).arg(&nx_i);
    unsafe { b.launch(cfg)? };
    let mut b = stream.launch_builder(&copy_row);
    b.arg(&*u).arg(&mut h.send_bottom).arg(&bottom).arg(&zero).arg(&nx_i);
    unsafe { b.launch(cfg)? };
    stream.synchronize()?;

    let st = h.send_top.device_ptr(stream).0;
    let sb = h.send_bottom.device_ptr(stream).0;
    unsafe {
        mpi_check(MPI_Isend(st as *const c_void, nx_i, MPI_FLOAT, up, TAG_UP, MPI_COMM_WORLD, &mut reqs[2]), "MPI_Isend");
        mpi_check(MPI_Isend(sb as *const c_void, nx_i, MPI_FLOAT, down, TAG_DOWN, MPI_COMM_WORLD, &mut reqs[3]), "MPI_Isend");
        mpi_check(MPI_Waitall(4, reqs.as_mut_ptr(), MPI_STATUSES_IGNORE), "MPI_Waitall");
    }

    let ghost_top = ny as i32 + 1;
    let mut b = stream.launch_builder(&copy_row);
    b.arg(&h.recv_top).arg(&mut *u).arg(&zero).arg(&ghost_top).arg(&nx_i);
    unsafe { b.launch(cfg)? };
    let mut b = stream.launch_builder(&copy_row);
    b.arg(&h.recv_bottom).arg(&mut *u).arg(&zero).arg(&zero).arg(&nx_i);
    unsafe { b.launch(cfg)? };
    Ok(())
}

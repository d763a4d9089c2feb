//! case: a Jacobi sweep with an optional comm/compute overlap waits for the halo MPI_Irecv inside the `overlap` branch only; with overlap off the boundary kernel that reads the received halo is launched first and MPI_Wait comes after it, so on that path the kernel races the receive.
//! expect: missing_sync=1

use std::error::Error;
use std::ffi::{c_int, c_void};
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaSlice, CudaStream, DevicePtrMut, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

use crate::mpi::*;

const JACOBI_SRC: &str = r#"
extern "C" __global__ void jacobi_interior(const float* __restrict__ u, float* __restrict__ u_new,
                                           int nx, int ny)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x + 1;
    int j = blockIdx.y * blockDim.y + threadIdx.y + 1;
    if (i < nx - 1 && j < ny - 1) {
        u_new[j * nx + i] = 0.25f * (u[j * nx + i - 1] + u[j * nx + i + 1]
                                   + u[(j - 1) * nx + i] + u[(j + 1) * nx + i]);
    }
}

extern "C" __global__ void jacobi_north_row(const float* __restrict__ u,
                                            const float* __restrict__ halo_north,
                                            float* __restrict__ u_new, int nx, int ny)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = ny - 1;
    if (i > 0 && i < nx - 1) {
        u_new[j * nx + i] = 0.25f * (u[j * nx + i - 1] + u[j * nx + i + 1]
                                   + u[(j - 1) * nx + i] + halo_north[i]);
    }
}
"#;

const TAG_SOUTH_ROW: c_int = 21;

pub struct SweepOptions {
    pub overlap: bool,
}

pub fn jacobi_sweep(
    ctx: &Arc<CudaContext>,
    stream: &Arc<CudaStream>,
    u: &CudaSlice<f32>,
    u_new: &mut CudaSlice<f32>,
    halo_north: &mut CudaSlice<f32>,
    nx: usize,
    ny: usize,
    north: c_int,
    opts: &SweepOptions,
) -> Result<(), Box<dyn Error>> {
    let ptx = compile_ptx(JACOBI_SRC)?;
    let module = ctx.load_module(ptx)?;
    let interior = module.load_function("jacobi_interior")?;
    let north_row = module.load_function("jacobi_north_row")?;
    let (nx_i, ny_i) = (nx as i32, ny as i32);

    let mut req: MPI_Request = MPI_REQUEST_NULL;
    let halo_ptr = halo_north.device_ptr_mut(stream).0;
    let rc = unsafe { MPI_Irecv(halo_ptr as *mut c_void, nx_i, MPI_FLOAT, north, TAG_SOUTH_ROW, MPI_COMM_WORLD, &mut req) };
    mpi_check(rc, "MPI_Irecv");

    let interior_cfg = LaunchConfig {
        grid_dim: ((nx as u32).div_ceil(16), (ny as u32).div_ceil(16), 1),
        block_dim: (16, 16, 1),
        shared_mem_bytes: 0,
    };
    if opts.overlap {
        // The interior does not need the halo: compute it while the message is in flight.
        let mut b = stream.launch_builder(&interior);
        b.arg(u).arg(&mut *u_new).arg(&nx_i).arg(&ny_i);
        unsafe { b.launch(interior_cfg)? };
        let rc = unsafe { MPI_Wait(&mut req, MPI_STATUS_IGNORE) };
        mpi_check(rc, "MPI_Wait");
    }

    let mut b = stream.launch_builder(&north_row);
    b.arg(u).arg(&*halo_north).arg(&mut *u_new).arg(&nx_i).arg(&ny_i);
    unsafe { b.launch(LaunchConfig::for_num_elems(nx as u32))? }; // EXPECT: missing_sync

    if !opts.overlap {
        let rc = unsafe { MPI_Wait(&mut req, MPI_STATUS_IGNORE) };
        mpi_check(rc, "MPI_Wait");
        let mut b = stream.launch_builder(&interior);
        b.arg(u).arg(&mut *u_new).arg(&nx_i).arg(&ny_i);
        unsafe { b.launch(interior_cfg)? };
    }
    Ok(())
}

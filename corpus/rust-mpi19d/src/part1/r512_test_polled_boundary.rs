//! case: near miss of r511: the ghost-row receive is polled with `MPI_Test` in `loop { ...; if flag != 0 { break; } }`, advancing one interior tile (other buffers) per turn with a raw `launch_kernel`; the boundary kernel that reads the ghost row runs after the loop, and the edge row is rewritten only after `MPI_Wait` on its send.
//! expect: none

use std::ffi::{c_int, c_void};
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaSlice, DevicePtr, DevicePtrMut, LaunchConfig, PushKernelArg, result};
use cudarc::nvrtc::compile_ptx;

use crate::bindings::*;

const STENCIL_SRC: &str = r#"
extern "C" __global__ void init_u(float* u, int nx, int ny, int rank) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < nx * ny) u[i] = (float)rank - 0.002f * (float)i;
}

extern "C" __global__ void copy_row(const float* u, float* row, int nx, int r) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    if (x < nx) row[x] = u[r * nx + x];
}

// Rows [r0, r1) of the interior, all at least 2.
extern "C" __global__ void interior_tile(const float* u, float* next, int nx, int r0, int r1) {
    int i = blockIdx.x * blockDim.x + threadIdx.x + r0 * nx;
    if (i >= r1 * nx) return;
    int x = i % nx;
    if (x == 0 || x == nx - 1) { next[i] = u[i]; return; }
    next[i] = 0.2f * (u[i] + u[i - 1] + u[i + 1] + u[i - nx] + u[i + nx]);
}

extern "C" __global__ void boundary(const float* u, const float* ghost, float* next, int nx) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    if (x <= 0 || x >= nx - 1) return;
    int i = nx + x;
    next[i] = 0.2f * (u[i] + u[i - 1] + u[i + 1] + ghost[x] + u[i + nx]);
}
"#;

const HALO_TAG: c_int = 52;
const TILE_ROWS: usize = 64;

/// One stencil step; the interior is computed in tiles while the ghost row is in flight.
/// Returns the new slab and its first owned row, ready to send on the next step.
pub fn stencil_step_polled(
    ctx: &Arc<CudaContext>,
    comm: MPI_Comm,
    up: c_int,
    down: c_int,
    nx: usize,
    ny: usize,
) -> Result<(CudaSlice<f32>, CudaSlice<f32>), Box<dyn std::error::Error>> {
    let (rank, _size) = rank_and_size(comm)?;
    let stream = ctx.new_stream()?;
    let module = ctx.load_module(compile_ptx(STENCIL_SRC)?)?;
    let init = module.load_function("init_u")?;
    let copy_row = module.load_function("copy_row")?;
    let tile = module.load_function("interior_tile")?;
    let boundary = module.load_function("boundary")?;

    let (mut nx_i, ny_i, first_owned) = (nx as i32, ny as i32, 1i32);
    let mut u = stream.alloc_zeros::<f32>(nx * ny)?;
    let mut next = stream.alloc_zeros::<f32>(nx * ny)?;
    let mut ghost = stream.alloc_zeros::<f32>(nx)?;
    let mut edge = stream.alloc_zeros::<f32>(nx)?;
    let row_cfg = LaunchConfig::for_num_elems(nx as u32);
    unsafe { stream.launch_builder(&init).arg(&mut u).arg(&nx_i).arg(&ny_i).arg(&rank).launch(LaunchConfig::for_num_elems((nx * ny) as u32)) }?;
    unsafe { stream.launch_builder(&copy_row).arg(&u).arg(&mut edge).arg(&nx_i).arg(&first_owned).launch(row_cfg) }?;
    stream.synchronize()?;

    let mut reqs = [MPI_REQUEST_NULL; 2];
    let ghost_ptr = ghost.device_ptr_mut(&stream).0;
    let edge_ptr = edge.device_ptr(&stream).0;
    let rc_r = unsafe { MPI_Irecv(ghost_ptr as *mut c_void, nx as c_int, MPI_FLOAT, up, HALO_TAG, comm, &mut reqs[0]) };
    let rc_s = unsafe { MPI_Isend(edge_ptr as *const c_void, nx as c_int, MPI_FLOAT, down, HALO_TAG, comm, &mut reqs[1]) };

    let mut u_ptr = u.device_ptr(&stream).0;
    let mut next_ptr = next.device_ptr_mut(&stream).0;
    let last = ny.saturating_sub(1);
    let mut row = 2usize;
    let mut tile_err: Result<(), result::DriverError> = Ok(());
    loop {
        let mut flag: c_int = 0;
        unsafe { MPI_Test(&mut reqs[0], &mut flag, MPI_STATUS_IGNORE) };
        if flag != 0 {
            break;
        }
        if row < last && tile_err.is_ok() {
            let (mut r0, mut r1) = (row as i32, (row + TILE_ROWS).min(last) as i32);
            let mut args = [
                &mut u_ptr as *mut u64 as *mut c_void,
                &mut next_ptr as *mut u64 as *mut c_void,
                &mut nx_i as *mut i32 as *mut c_void,
                &mut r0 as *mut i32 as *mut c_void,
                &mut r1 as *mut i32 as *mut c_void,
            ];
            let grid = (((r1 - r0) as u32 * nx as u32).div_ceil(256), 1, 1);
            tile_err = unsafe { result::launch_kernel(tile.cu_function(), grid, (256, 1, 1), 0, stream.cu_stream(), &mut args) };
            row = r1 as usize;
        }
    }

    // The ghost row has arrived; the first owned row may now be computed.
    let edge_launch = unsafe { stream.launch_builder(&boundary).arg(&u).arg(&ghost).arg(&mut next).arg(&nx_i).launch(row_cfg) };
    let rc_w = unsafe { MPI_Wait(&mut reqs[1], MPI_STATUS_IGNORE) };
    mpi_check(rc_r, "MPI_Irecv")?;
    mpi_check(rc_s, "MPI_Isend")?;
    mpi_check(rc_w, "MPI_Wait")?;
    tile_err?;
    edge_launch?;

    // Tiles the polling loop did not get to.
    if row < last {
        let (r0, r1) = (row as i32, last as i32);
        let cfg = LaunchConfig::for_num_elems(((last - row) * nx) as u32);
        unsafe { stream.launch_builder(&tile).arg(&u).arg(&mut next).arg(&nx_i).arg(&r0).arg(&r1).launch(cfg) }?;
    }
    // The send of `edge` is complete, so it may be refreshed for the next step.
    unsafe { stream.launch_builder(&copy_row).arg(&next).arg(&mut edge).arg(&nx_i).arg(&first_owned).launch(row_cfg) }?;
    stream.synchronize()?;
    Ok((next, edge))
}

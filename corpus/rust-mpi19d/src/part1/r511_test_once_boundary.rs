//! case: a halo-overlapped stencil calls `MPI_Test` once on the ghost-row receive, reorders the interior and boundary kernels on its flag, and launches the boundary kernel that reads the ghost row whatever the flag said; a single `MPI_Test` completes nothing, so when it reports "not done" the kernel reads a buffer `MPI_Irecv` is still writing.
//! expect: missing_sync=1

use std::ffi::{c_int, c_void};
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaSlice, DevicePtr, DevicePtrMut, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

use crate::bindings::*;

const STENCIL_SRC: &str = r#"
extern "C" __global__ void init_u(float* u, int nx, int ny, int rank) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < nx * ny) u[i] = (float)rank + 0.001f * (float)i;
}

extern "C" __global__ void copy_row(const float* u, float* row, int nx, int r) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    if (x < nx) row[x] = u[r * nx + x];
}

// Rows 2 .. ny-2 need only local data.
extern "C" __global__ void interior(const float* u, float* next, int nx, int ny) {
    int i = blockIdx.x * blockDim.x + threadIdx.x + 2 * nx;
    if (i >= (ny - 1) * nx) return;
    int x = i % nx;
    if (x == 0 || x == nx - 1) { next[i] = u[i]; return; }
    next[i] = 0.2f * (u[i] + u[i - 1] + u[i + 1] + u[i - nx] + u[i + nx]);
}

// Row 1 needs the ghost row from the rank above.
extern "C" __global__ void boundary(const float* u, const float* ghost, float* next, int nx) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    if (x <= 0 || x >= nx - 1) return;
    int i = nx + x;
    next[i] = 0.2f * (u[i] + u[i - 1] + u[i + 1] + ghost[x] + u[i + nx]);
}
"#;

const HALO_TAG: c_int = 51;

/// One stencil step of an `nx` x `ny` slab that receives its ghost row from `up` and sends
/// its first owned row to `down`.
pub fn stencil_step_test_once(
    ctx: &Arc<CudaContext>,
    comm: MPI_Comm,
    up: c_int,
    down: c_int,
    nx: usize,
    ny: usize,
) -> Result<CudaSlice<f32>, Box<dyn std::error::Error>> {
    let (rank, _size) = rank_and_size(comm)?;
    let stream = ctx.new_stream()?;
    let module = ctx.load_module(compile_ptx(STENCIL_SRC)?)?;
    let init = module.load_function("init_u")?;
    let copy_row = module.load_function("copy_row")?;
    let interior = module.load_function("interior")?;
    let boundary = module.load_function("boundary")?;

    let (nx_i, ny_i, first_owned) = (nx as i32, ny as i32, 1i32);
    let mut u = stream.alloc_zeros::<f32>(nx * ny)?;
    let mut next = stream.alloc_zeros::<f32>(nx * ny)?;
    let mut ghost = stream.alloc_zeros::<f32>(nx)?;
    let mut edge = stream.alloc_zeros::<f32>(nx)?;
    let row_cfg = LaunchConfig::for_num_elems(nx as u32);
    let interior_cfg = LaunchConfig::for_num_elems((nx * ny.saturating_sub(3)) as u32);
    unsafe { stream.launch_builder(&init).arg(&mut u).arg(&nx_i).arg(&ny_i).arg(&rank).launch(LaunchConfig::for_num_elems((nx * ny) as u32)) }?;
    unsafe { stream.launch_builder(&copy_row).arg(&u).arg(&mut edge).arg(&nx_i).arg(&first_owned).launch(row_cfg) }?;
    stream.synchronize()?;

    let mut reqs = [MPI_REQUEST_NULL; 2];
    let ghost_ptr = ghost.device_ptr_mut(&stream).0;
    let edge_ptr = edge.device_ptr(&stream).0;
    let rc_r = unsafe { MPI_Irecv(ghost_ptr as *mut c_void, nx as c_int, MPI_FLOAT, up, HALO_TAG, comm, &mut reqs[0]) };
    let rc_s = unsafe { MPI_Isend(edge_ptr as *const c_void, nx as c_int, MPI_FLOAT, down, HALO_TAG, comm, &mut reqs[1]) };

    // Peek once: if the ghost row is not there yet, do the interior first to hide the latency.
    let mut arrived: c_int = 0;
    unsafe { MPI_Test(&mut reqs[0], &mut arrived, MPI_STATUS_IGNORE) };
    let interior_first = arrived == 0;
    let early = if interior_first {
        unsafe { stream.launch_builder(&interior).arg(&u).arg(&mut next).arg(&nx_i).arg(&ny_i).launch(interior_cfg) }.map(|_| ())
    } else {
        Ok(())
    };
    let edge_launch = unsafe { stream.launch_builder(&boundary).arg(&u).arg(&ghost).arg(&mut next).arg(&nx_i).launch(row_cfg) }; // EXPECT: missing_sync
    let late = if interior_first {
        Ok(())
    } else {
        unsafe { stream.launch_builder(&interior).arg(&u).arg(&mut next).arg(&nx_i).arg(&ny_i).launch(interior_cfg) }.map(|_| ())
    };

    let rc_w = unsafe { MPI_Waitall(2, reqs.as_mut_ptr(), MPI_STATUSES_IGNORE) };
    mpi_check(rc_r, "MPI_Irecv")?;
    mpi_check(rc_s, "MPI_Isend")?;
    mpi_check(rc_w, "MPI_Waitall")?;
    early?;
    edge_launch?;
    late?;
    stream.synchronize()?;
    Ok(next)
}

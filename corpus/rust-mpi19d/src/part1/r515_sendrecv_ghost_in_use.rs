//! case: a 1-D diffusion time loop launches the advance kernel that reads the current ghost cells and, to overlap communication, immediately calls the blocking `MPI_Sendrecv` that receives the next step's ghost cells into that same device buffer; the send side was synchronized, but the receive overwrites ghosts the advance kernel may still be reading.
//! expect: missing_sync=1

use std::ffi::{c_int, c_void};
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaSlice, DevicePtr, DevicePtrMut, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

use crate::bindings::*;

const DIFFUSION_SRC: &str = r#"
extern "C" __global__ void init_rod(float* u, int n, int rank) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) u[i] = (rank == 0 && i < 8) ? 1.0f : 0.0f;
}

// The owned cells nearest to the right neighbour, in order.
extern "C" __global__ void pack_right(const float* u, float* edge, int n, int width) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < width) edge[k] = u[n - width + k];
}

// ghost[0..width) are the left neighbour's last cells.
extern "C" __global__ void advance(const float* u, const float* ghost, float* next, int n, int width, float nu) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float left = (i == 0) ? ghost[width - 1] : u[i - 1];
    float right = (i == n - 1) ? u[i] : u[i + 1];
    next[i] = u[i] + nu * (left - 2.0f * u[i] + right);
}
"#;

const GHOST_TAG: c_int = 61;

/// Runs `steps` explicit diffusion steps on this rank's `n` cells of a rod split over the
/// ranks of `comm`, exchanging `width` ghost cells with the neighbours each step.
pub fn diffuse_rod(
    ctx: &Arc<CudaContext>,
    comm: MPI_Comm,
    n: usize,
    width: usize,
    steps: usize,
) -> Result<CudaSlice<f32>, Box<dyn std::error::Error>> {
    let (rank, size) = rank_and_size(comm)?;
    let right = if rank + 1 < size { rank + 1 } else { MPI_PROC_NULL };
    let left = if rank > 0 { rank - 1 } else { MPI_PROC_NULL };

    let stream = ctx.new_stream()?;
    let module = ctx.load_module(compile_ptx(DIFFUSION_SRC)?)?;
    let init = module.load_function("init_rod")?;
    let pack = module.load_function("pack_right")?;
    let advance = module.load_function("advance")?;

    let (n_i, w_i, nu) = (n as i32, width as i32, 0.2f32);
    let cells = LaunchConfig::for_num_elems(n as u32);
    let ghosts = LaunchConfig::for_num_elems(width as u32);
    let mut u = stream.alloc_zeros::<f32>(n)?;
    let mut next = stream.alloc_zeros::<f32>(n)?;
    let mut ghost = stream.alloc_zeros::<f32>(width)?;
    let mut edge = stream.alloc_zeros::<f32>(width)?;
    unsafe { stream.launch_builder(&init).arg(&mut u).arg(&n_i).arg(&rank).launch(cells) }?;
    stream.synchronize()?;

    for _step in 0..steps {
        unsafe { stream.launch_builder(&pack).arg(&u).arg(&mut edge).arg(&n_i).arg(&w_i).launch(ghosts) }?;
        // The edge must be packed before MPI reads it.
        stream.synchronize()?;

        unsafe { stream.launch_builder(&advance).arg(&u).arg(&ghost).arg(&mut next).arg(&n_i).arg(&w_i).arg(&nu).launch(cells) }?;

        // Overlap: fetch the next step's ghosts while this step advances.
        let edge_ptr = edge.device_ptr(&stream).0;
        let ghost_ptr = ghost.device_ptr_mut(&stream).0;
        let rc = unsafe { MPI_Sendrecv(edge_ptr as *const c_void, w_i, MPI_FLOAT, right, GHOST_TAG, ghost_ptr as *mut c_void, w_i, MPI_FLOAT, left, GHOST_TAG, comm, MPI_STATUS_IGNORE) }; // EXPECT: missing_sync
        mpi_check(rc, "MPI_Sendrecv")?;

        stream.memcpy_dtod(&next, &mut u)?;
    }
    stream.synchronize()?;
    Ok(u)
}

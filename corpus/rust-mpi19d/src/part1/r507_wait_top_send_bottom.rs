//! case: a slab decomposition sends its top face with `MPI_Isend` after a stream synchronize, then extracts its bottom face with a raw `launch_kernel`, calls `MPI_Wait` on the top request as if it ordered the GPU too, and hands the bottom face's device pointer to a blocking `MPI_Send` while the extract kernel may still be writing it.
//! expect: missing_sync=1

use std::ffi::{c_int, c_void};
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaSlice, DevicePtr, DevicePtrMut, LaunchConfig, PushKernelArg, result};
use cudarc::nvrtc::compile_ptx;

use crate::bindings::*;

const FACE_SRC: &str = r#"
extern "C" __global__ void init_slab(float* u, int nx, int ny, float t0) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < nx * ny) u[i] = t0 + (float)(i / nx);
}

extern "C" __global__ void extract_row(const float* u, float* face, int nx, int row) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    if (x < nx) face[x] = u[row * nx + x];
}
"#;

const TAG_TOP: c_int = 21;
const TAG_BOTTOM: c_int = 22;

/// Publishes the top and bottom owned rows of an `nx` x `ny` slab to the ranks above and
/// below (`up`, `down`), which post matching receives.
pub fn publish_faces(
    ctx: &Arc<CudaContext>,
    comm: MPI_Comm,
    up: c_int,
    down: c_int,
    nx: usize,
    ny: usize,
) -> Result<CudaSlice<f32>, Box<dyn std::error::Error>> {
    let stream = ctx.new_stream()?;
    let module = ctx.load_module(compile_ptx(FACE_SRC)?)?;
    let init = module.load_function("init_slab")?;
    let extract = module.load_function("extract_row")?;

    let mut slab = stream.alloc_zeros::<f32>(nx * ny)?;
    let mut top = stream.alloc_zeros::<f32>(nx)?;
    let mut bottom = stream.alloc_zeros::<f32>(nx)?;
    let (mut nx_i, ny_i, t0) = (nx as i32, ny as i32, 300.0f32);
    unsafe {
        stream
            .launch_builder(&init)
            .arg(&mut slab)
            .arg(&nx_i)
            .arg(&ny_i)
            .arg(&t0)
            .launch(LaunchConfig::for_num_elems((nx * ny) as u32))
    }?;

    let grid = ((nx as u32).div_ceil(256), 1, 1);
    let block = (256, 1, 1);
    let mut slab_ptr = slab.device_ptr(&stream).0;

    // Top face: extract, wait for it, send it without blocking.
    let mut top_ptr = top.device_ptr_mut(&stream).0;
    let mut row_top: i32 = ny_i - 2;
    let mut args_top = [
        &mut slab_ptr as *mut u64 as *mut c_void,
        &mut top_ptr as *mut u64 as *mut c_void,
        &mut nx_i as *mut i32 as *mut c_void,
        &mut row_top as *mut i32 as *mut c_void,
    ];
    unsafe { result::launch_kernel(extract.cu_function(), grid, block, 0, stream.cu_stream(), &mut args_top) }?;
    stream.synchronize()?;
    let mut req_top = MPI_REQUEST_NULL;
    let rc_isend = unsafe { MPI_Isend(top_ptr as *const c_void, nx as c_int, MPI_FLOAT, up, TAG_TOP, comm, &mut req_top) };

    // Bottom face: extracted while the top face is on the wire.
    let mut bottom_ptr = bottom.device_ptr_mut(&stream).0;
    let mut row_bottom: i32 = 1;
    let mut args_bottom = [
        &mut slab_ptr as *mut u64 as *mut c_void,
        &mut bottom_ptr as *mut u64 as *mut c_void,
        &mut nx_i as *mut i32 as *mut c_void,
        &mut row_bottom as *mut i32 as *mut c_void,
    ];
    let launched = unsafe { result::launch_kernel(extract.cu_function(), grid, block, 0, stream.cu_stream(), &mut args_bottom) };

    // Completes the top send; says nothing about the bottom extract on the stream.
    let rc_wait = unsafe { MPI_Wait(&mut req_top, MPI_STATUS_IGNORE) };
    launched?;
    mpi_check(rc_isend, "MPI_Isend")?;
    mpi_check(rc_wait, "MPI_Wait")?;

    let rc = unsafe { MPI_Send(bottom_ptr as *const c_void, nx as c_int, MPI_FLOAT, down, TAG_BOTTOM, comm) }; // EXPECT: missing_sync
    mpi_check(rc, "MPI_Send")?;
    stream.synchronize()?;
    Ok(slab)
}

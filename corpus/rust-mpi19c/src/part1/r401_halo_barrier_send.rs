//! case: 1-D stencil halo exchange packs the right boundary with a kernel on a cudarc stream, then calls MPI_Barrier and a blocking MPI_Send of the packed CudaSlice's device pointer without synchronizing the stream; the barrier waits for no CUDA work, so MPI may read the halo while the pack kernel still writes it.
//! expect: missing_sync=1

use std::ffi::{c_int, c_void};
use std::sync::Arc;

use cudarc::driver::{
    CudaContext, CudaSlice, DevicePtr, DevicePtrMut, LaunchConfig, PushKernelArg,
};
use cudarc::nvrtc::compile_ptx;

use crate::mpi_sys::*;

const HALO_TAG: c_int = 7;

const STENCIL_SRC: &str = r#"
extern "C" __global__ void init_field(float* u, int total, int rank) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < total) u[i] = (float)(rank * total + i) * 0.001f;
}

// u holds [left ghosts | n interior | right ghosts], each ghost zone `width` wide.
extern "C" __global__ void pack_right(const float* u, float* halo, int n, int width) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < width) halo[i] = u[n + i];
}

extern "C" __global__ void unpack_left(float* u, const float* halo, int width) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < width) u[i] = halo[i];
}
"#;

/// Builds the local slab of a 1-D decomposition and shifts the right boundary one rank
/// to the right (rank r's last interior cells become rank r+1's left ghosts).
pub fn shift_right_halo(
    ctx: &Arc<CudaContext>,
    rank: c_int,
    size: c_int,
    n: usize,
    width: usize,
) -> Result<CudaSlice<f32>, Box<dyn std::error::Error>> {
    let stream = ctx.new_stream()?;
    let module = ctx.load_module(compile_ptx(STENCIL_SRC)?)?;
    let init = module.load_function("init_field")?;
    let pack = module.load_function("pack_right")?;
    let unpack = module.load_function("unpack_left")?;

    let total = n + 2 * width;
    let (total_i, n_i, w_i) = (total as c_int, n as c_int, width as c_int);

    // Every element of these is written (by a kernel or by MPI) before it is read.
    let mut u: CudaSlice<f32> = unsafe { stream.alloc(total)? };
    let mut send_halo: CudaSlice<f32> = unsafe { stream.alloc(width)? };
    let mut recv_halo: CudaSlice<f32> = unsafe { stream.alloc(width)? };

    let mut fill = stream.launch_builder(&init);
    fill.arg(&mut u).arg(&total_i).arg(&rank);
    unsafe { fill.launch(LaunchConfig::for_num_elems(total as u32))? };
    stream.synchronize()?; // set-up done: allocations and the initial field are in place

    let mut pk = stream.launch_builder(&pack);
    pk.arg(&u).arg(&mut send_halo).arg(&n_i).arg(&w_i);
    unsafe { pk.launch(LaunchConfig::for_num_elems(width as u32))? };

    // "make sure every rank has packed before anyone starts sending"
    unsafe { MPI_Barrier(MPI_COMM_WORLD) };

    let right = rank + 1;
    let left = rank - 1;
    if right < size {
        let send_ptr = send_halo.device_ptr(&stream).0;
        let rc = unsafe {
            MPI_Send(send_ptr as *const c_void, w_i, MPI_FLOAT, right, HALO_TAG, MPI_COMM_WORLD) // EXPECT: missing_sync
        };
        if rc != MPI_SUCCESS {
            return Err(format!("MPI_Send to {right} failed: {rc}").into());
        }
    }
    if left >= 0 {
        let recv_ptr = recv_halo.device_ptr_mut(&stream).0;
        let rc = unsafe {
            MPI_Recv(
                recv_ptr as *mut c_void,
                w_i,
                MPI_FLOAT,
                left,
                HALO_TAG,
                MPI_COMM_WORLD,
                MPI_STATUS_IGNORE,
            )
        };
        if rc != MPI_SUCCESS {
            return Err(format!("MPI_Recv from {left} failed: {rc}").into());
        }
        let mut up = stream.launch_builder(&unpack);
        up.arg(&mut u).arg(&recv_halo).arg(&w_i);
        unsafe { up.launch(LaunchConfig::for_num_elems(width as u32))? };
    }

    stream.synchronize()?;
    Ok(u)
}

//! case: near miss of r401: the same right-shift halo exchange on cuMemAlloc'd buffers with kernels launched through result::launch_kernel, but the stream is synchronized after the pack kernel and before MPI_Barrier and the blocking MPI_Send, and the received halo is unpacked by a kernel only after MPI_Recv has returned.
//! expect: none

use std::ffi::{c_int, c_uint, c_void};
use std::sync::Arc;

use cudarc::driver::{result, sys, CudaContext};
use cudarc::nvrtc::compile_ptx;

use crate::mpi_sys::*;

const HALO_TAG: c_int = 8;

const STENCIL_SRC: &str = r#"
extern "C" __global__ void init_field(double* u, int total, int rank) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < total) u[i] = (double)(rank * total + i) * 1e-3;
}
extern "C" __global__ void pack_right(const double* u, double* halo, int n, int width) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < width) halo[i] = u[n + i];
}
extern "C" __global__ void unpack_left(double* u, const double* halo, int width) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < width) u[i] = halo[i];
}
"#;

fn blocks(n: usize) -> (c_uint, c_uint, c_uint) {
    (((n + 255) / 256) as c_uint, 1, 1)
}

/// Shifts the right boundary one rank to the right and returns the sum of the received
/// ghost cells (0 on rank 0), read back with a blocking copy.
pub fn shift_right_halo_synced(
    ctx: &Arc<CudaContext>,
    rank: c_int,
    size: c_int,
    n: usize,
    width: usize,
) -> Result<f64, Box<dyn std::error::Error>> {
    let stream = ctx.new_stream()?;
    let module = ctx.load_module(compile_ptx(STENCIL_SRC)?)?;
    let init = module.load_function("init_field")?.cu_function();
    let pack = module.load_function("pack_right")?.cu_function();
    let unpack = module.load_function("unpack_left")?.cu_function();
    let cs = stream.cu_stream();

    let total = n + 2 * width;
    let esz = std::mem::size_of::<f64>();
    let (mut total_i, mut n_i, mut w_i, mut rank_i) = (total as c_int, n as c_int, width as c_int, rank);

    let mut u = unsafe { result::malloc_sync(total * esz)? };
    let mut send = unsafe { result::malloc_sync(width * esz) }.expect("alloc send halo");
    let mut recv = unsafe { result::malloc_sync(width * esz) }.expect("alloc recv halo");

    unsafe {
        let mut p: [*mut c_void; 3] = [
            &mut u as *mut sys::CUdeviceptr as *mut c_void,
            &mut total_i as *mut c_int as *mut c_void,
            &mut rank_i as *mut c_int as *mut c_void,
        ];
        result::launch_kernel(init, blocks(total), (256, 1, 1), 0, cs, &mut p).expect("init_field");
        let mut p: [*mut c_void; 4] = [
            &mut u as *mut sys::CUdeviceptr as *mut c_void,
            &mut send as *mut sys::CUdeviceptr as *mut c_void,
            &mut n_i as *mut c_int as *mut c_void,
            &mut w_i as *mut c_int as *mut c_void,
        ];
        result::launch_kernel(pack, blocks(width), (256, 1, 1), 0, cs, &mut p).expect("pack_right");
    }
    stream.synchronize().expect("pack kernel");
    unsafe { MPI_Barrier(MPI_COMM_WORLD) };

    let mut ghost_sum = 0.0f64;
    if rank + 1 < size {
        unsafe { MPI_Send(send as *const c_void, w_i, MPI_DOUBLE, rank + 1, HALO_TAG, MPI_COMM_WORLD) };
    }
    if rank > 0 {
        unsafe {
            MPI_Recv(recv as *mut c_void, w_i, MPI_DOUBLE, rank - 1, HALO_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            let mut p: [*mut c_void; 3] = [
                &mut u as *mut sys::CUdeviceptr as *mut c_void,
                &mut recv as *mut sys::CUdeviceptr as *mut c_void,
                &mut w_i as *mut c_int as *mut c_void,
            ];
            result::launch_kernel(unpack, blocks(width), (256, 1, 1), 0, cs, &mut p).expect("unpack_left");
        }
        stream.synchronize().expect("unpack kernel");
        let mut ghosts = vec![0.0f64; width];
        unsafe { result::memcpy_dtoh_sync(&mut ghosts, u) }.expect("read ghosts");
        ghost_sum = ghosts.iter().sum();
    }

    stream.synchronize().expect("halo stream");
    unsafe {
        result::free_sync(recv).expect("free recv");
        result::free_sync(send).expect("free send");
        result::free_sync(u).expect("free u");
    }
    Ok(ghost_sum)
}

//! case: near miss: after a synchronized pack, the boundary buffer goes out with MPI_Isend while a kernel that only reads that same buffer (a checksum for the resilience log) runs; two readers never race, and MPI_Wait plus a synchronize come before the checksum is reduced.
//! expect: none

use std::error::Error;
use std::ffi::{c_int, c_void};
use std::sync::Arc;

use cudarc::driver::{
    CudaContext, CudaSlice, CudaStream, DevicePtr, DevicePtrMut, LaunchConfig, PushKernelArg,
};
use cudarc::nvrtc::compile_ptx;

use crate::mpi::*;

const CKSUM_SRC: &str = r#"
extern "C" __global__ void gather_faces(const float* __restrict__ cells, const int* __restrict__ face_ids,
                                        float* __restrict__ faces, int n_faces)
{
    int f = blockIdx.x * blockDim.x + threadIdx.x;
    if (f < n_faces) faces[f] = cells[face_ids[f]];
}

extern "C" __global__ void block_checksum(const float* __restrict__ faces, double* __restrict__ sums,
                                          int n_faces)
{
    __shared__ double acc[256];
    int f = blockIdx.x * blockDim.x + threadIdx.x;
    acc[threadIdx.x] = f < n_faces ? (double)faces[f] * (double)(f + 1) : 0.0;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) acc[threadIdx.x] += acc[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) sums[blockIdx.x] = acc[0];
}
"#;

const TAG_FACES: c_int = 60;

/// Ships the shared faces to `neighbour` and returns nothing; the per-block checksums land
/// in `d_sums`, summed over all ranks, for the caller to log.
pub fn send_faces_with_checksum(
    ctx: &Arc<CudaContext>,
    stream: &Arc<CudaStream>,
    cells: &CudaSlice<f32>,
    face_ids: &CudaSlice<i32>,
    d_faces: &mut CudaSlice<f32>,
    d_sums: &mut CudaSlice<f64>,
    neighbour: c_int,
) -> Result<(), Box<dyn Error>> {
    let n_faces = face_ids.len();
    let cfg = LaunchConfig { grid_dim: ((n_faces as u32).div_ceil(256), 1, 1), block_dim: (256, 1, 1), shared_mem_bytes: 0 };
    assert!(d_faces.len() >= n_faces && d_sums.len() >= cfg.grid_dim.0 as usize);
    let ptx = compile_ptx(CKSUM_SRC)?;
    let module = ctx.load_module(ptx)?;
    let gather = module.load_function("gather_faces")?;
    let checksum = module.load_function("block_checksum")?;
    let n_i = n_faces as i32;

    let mut b = stream.launch_builder(&gather);
    b.arg(cells).arg(face_ids).arg(&mut *d_faces).arg(&n_i);
    unsafe { b.launch(cfg)? };
    stream.synchronize()?;

    let mut req: MPI_Request = MPI_REQUEST_NULL;
    let faces_ptr = d_faces.device_ptr(stream).0;
    let rc = unsafe { MPI_Isend(faces_ptr as *const c_void, n_i, MPI_FLOAT, neighbour, TAG_FACES, MPI_COMM_WORLD, &mut req) };
    mpi_check(rc, "MPI_Isend");

    // Reads the faces the send is reading too.
    let mut b = stream.launch_builder(&checksum);
    b.arg(&*d_faces).arg(&mut *d_sums).arg(&n_i);
    let launched = unsafe { b.launch(cfg) };

    let rc = unsafe { MPI_Wait(&mut req, MPI_STATUS_IGNORE) };
    mpi_check(rc, "MPI_Wait");
    launched?;
    stream.synchronize()?;

    let blocks = cfg.grid_dim.0 as c_int;
    let sums_ptr = d_sums.device_ptr_mut(stream).0;
    let rc = unsafe { MPI_Allreduce(MPI_IN_PLACE, sums_ptr as *mut c_void, blocks, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD) };
    mpi_check(rc, "MPI_Allreduce");
    Ok(())
}

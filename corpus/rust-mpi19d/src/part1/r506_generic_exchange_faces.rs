//! case: near miss: a generic `exchange<T: Copy>` posts `MPI_Irecv` and `MPI_Isend` on device pointers and completes both with `MPI_Waitall` before returning; its caller synchronizes the stream after the pack kernel that writes the send faces and before calling it, and unpacks the received faces only after it returns.
//! expect: none

use std::ffi::{c_int, c_void};
use std::sync::Arc;

use cudarc::driver::{
    CudaContext, CudaSlice, DevicePtr, DevicePtrMut, DeviceRepr, LaunchConfig, PushKernelArg, ValidAsZeroBits,
};
use cudarc::nvrtc::compile_ptx;

use crate::bindings::*;

const FACES_SRC: &str = r#"
extern "C" __global__ void init_cells(float* u, int* kind, int nx, int ny, int rank) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < nx * ny) {
        u[i] = (float)rank + 0.01f * (float)(i % nx);
        kind[i] = (i % 13 == 0) ? 1 : 0;
    }
}

extern "C" __global__ void pack_face(const float* u, const int* kind, float* face, int* face_kind, int nx, int ny) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    if (x < nx) {
        int src = (ny - 2) * nx + x;
        face[x] = u[src];
        face_kind[x] = kind[src];
    }
}

extern "C" __global__ void unpack_face(float* u, const float* face, const int* face_kind, int nx) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    if (x < nx) u[x] = face_kind[x] ? 0.0f : face[x];
}
"#;

/// Element types MPI can move, with their predefined datatype.
pub trait MpiScalar: Copy + DeviceRepr + ValidAsZeroBits {
    const DATATYPE: MPI_Datatype;
}
impl MpiScalar for f32 {
    const DATATYPE: MPI_Datatype = MPI_FLOAT;
}
impl MpiScalar for f64 {
    const DATATYPE: MPI_Datatype = MPI_DOUBLE;
}
impl MpiScalar for i32 {
    const DATATYPE: MPI_Datatype = MPI_INT;
}

/// Swaps `n` elements with `peer`: `send` goes out, `recv` is filled. Both requests are
/// complete when this returns, also when one of the calls failed.
fn exchange<T: Copy + MpiScalar>(comm: MPI_Comm, peer: c_int, tag: c_int, send: u64, recv: u64, n: usize) -> Result<(), MpiError> {
    let mut reqs = [MPI_REQUEST_NULL; 2];
    let rc_r = unsafe { MPI_Irecv(recv as *mut c_void, n as c_int, T::DATATYPE, peer, tag, comm, &mut reqs[0]) };
    let rc_s = unsafe { MPI_Isend(send as *const c_void, n as c_int, T::DATATYPE, peer, tag, comm, &mut reqs[1]) };
    let rc_w = unsafe { MPI_Waitall(2, reqs.as_mut_ptr(), MPI_STATUSES_IGNORE) };
    mpi_check(rc_r, "MPI_Irecv")?;
    mpi_check(rc_s, "MPI_Isend")?;
    mpi_check(rc_w, "MPI_Waitall")
}

/// Exchanges the last owned row of an `nx` x `ny` slab (values and cell kinds) with `peer`
/// and writes the peer's row into this slab's ghost row 0.
pub fn swap_faces_with(
    ctx: &Arc<CudaContext>,
    comm: MPI_Comm,
    peer: c_int,
    nx: usize,
    ny: usize,
) -> Result<CudaSlice<f32>, Box<dyn std::error::Error>> {
    let (rank, _size) = rank_and_size(comm)?;
    let stream = ctx.new_stream()?;
    let module = ctx.load_module(compile_ptx(FACES_SRC)?)?;
    let init = module.load_function("init_cells")?;
    let pack = module.load_function("pack_face")?;
    let unpack = module.load_function("unpack_face")?;

    let (nx_i, ny_i) = (nx as i32, ny as i32);
    let mut u = stream.alloc_zeros::<f32>(nx * ny)?;
    let mut kind = stream.alloc_zeros::<i32>(nx * ny)?;
    let mut face_out = stream.alloc_zeros::<f32>(nx)?;
    let mut kind_out = stream.alloc_zeros::<i32>(nx)?;
    let mut face_in = stream.alloc_zeros::<f32>(nx)?;
    let mut kind_in = stream.alloc_zeros::<i32>(nx)?;

    let cells = LaunchConfig::for_num_elems((nx * ny) as u32);
    let row = LaunchConfig::for_num_elems(nx as u32);
    unsafe { stream.launch_builder(&init).arg(&mut u).arg(&mut kind).arg(&nx_i).arg(&ny_i).arg(&rank).launch(cells) }?;
    unsafe {
        stream
            .launch_builder(&pack)
            .arg(&u)
            .arg(&kind)
            .arg(&mut face_out)
            .arg(&mut kind_out)
            .arg(&nx_i)
            .arg(&ny_i)
            .launch(row)
    }?;
    // MPI does not follow the stream: the packed faces (and the zeroed receive faces) must be final.
    stream.synchronize()?;

    let send_ptr = face_out.device_ptr(&stream).0;
    let recv_ptr = face_in.device_ptr_mut(&stream).0;
    exchange::<f32>(comm, peer, 11, send_ptr, recv_ptr, nx)?;
    let send_kind = kind_out.device_ptr(&stream).0;
    let recv_kind = kind_in.device_ptr_mut(&stream).0;
    exchange::<i32>(comm, peer, 12, send_kind, recv_kind, nx)?;

    unsafe { stream.launch_builder(&unpack).arg(&mut u).arg(&face_in).arg(&kind_in).arg(&nx_i).launch(row) }?;
    stream.synchronize()?;
    Ok(u)
}

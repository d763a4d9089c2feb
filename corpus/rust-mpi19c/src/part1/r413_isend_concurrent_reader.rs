//! case: near miss: a flux exchange posts its receive through a post_recv helper and an MPI_Isend of the packed edge (synchronized first), launches a diagnostics kernel that only reads the edge buffer the send is also reading, and launches the kernel that applies the received flux only after MPI_Waitall on the array holding both requests.
//! expect: none

use std::ffi::{c_int, c_void};
use std::sync::Arc;

use cudarc::driver::{
    CudaContext, CudaSlice, DevicePtr, DevicePtrMut, LaunchConfig, PushKernelArg,
};
use cudarc::nvrtc::compile_ptx;

use crate::mpi_sys::*;

const FLUX_TAG: c_int = 64;

const FLUX_SRC: &str = r#"
extern "C" __global__ void init_cells(double* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = 1.0 + 0.5 * sin(0.01 * (double)i);
}
extern "C" __global__ void pack_flux(const double* c, double* edge, int n, int m) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < m) edge[i] = 0.5 * (c[n - m + i] - c[n - m + i - 1]);
}
// One block: sum of squares of the outgoing flux, for the log.
extern "C" __global__ void edge_norm(const double* edge, double* out, int m) {
    __shared__ double acc[256];
    double s = 0.0;
    for (int i = threadIdx.x; i < m; i += blockDim.x) s += edge[i] * edge[i];
    acc[threadIdx.x] = s;
    __syncthreads();
    for (int k = blockDim.x / 2; k > 0; k >>= 1) {
        if (threadIdx.x < k) acc[threadIdx.x] += acc[threadIdx.x + k];
        __syncthreads();
    }
    if (threadIdx.x == 0) out[0] = acc[0];
}
extern "C" __global__ void apply_flux(double* c, const double* incoming, int m) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < m) c[i] += incoming[i];
}
"#;

/// Posts a receive of `n` doubles from the left neighbour into `buf`.
fn post_recv(buf: u64, n: usize) -> MPI_Request {
    let mut rank: c_int = 0;
    let mut req = MPI_REQUEST_NULL;
    unsafe {
        MPI_Comm_rank(MPI_COMM_WORLD, &mut rank);
        let left = if rank > 0 { rank - 1 } else { MPI_PROC_NULL };
        MPI_Irecv(buf as *mut c_void, n as c_int, MPI_DOUBLE, left, FLUX_TAG, MPI_COMM_WORLD, &mut req);
    }
    req
}

/// Returns the device cells after the flux from the left neighbour was applied, and the
/// squared norm of the flux sent right (on the device).
pub fn exchange_flux(
    ctx: &Arc<CudaContext>,
    rank: c_int,
    size: c_int,
    n: usize,
    m: usize,
) -> Result<(CudaSlice<f64>, CudaSlice<f64>), Box<dyn std::error::Error>> {
    let stream = ctx.new_stream()?;
    let md = ctx.load_module(compile_ptx(FLUX_SRC)?)?;
    let (init, pack, norm, apply) = (
        md.load_function("init_cells")?,
        md.load_function("pack_flux")?,
        md.load_function("edge_norm")?,
        md.load_function("apply_flux")?,
    );
    let (n_i, m_i) = (n as c_int, m as c_int);

    let mut cells: CudaSlice<f64> = unsafe { stream.alloc(n)? };
    let mut edge: CudaSlice<f64> = unsafe { stream.alloc(m)? };
    // Zeroed: on rank 0 nothing is received (MPI_PROC_NULL) and apply_flux adds zeros.
    let mut incoming: CudaSlice<f64> = stream.alloc_zeros(m)?;
    let mut sq_norm: CudaSlice<f64> = unsafe { stream.alloc(1)? };

    unsafe { stream.launch_builder(&init).arg(&mut cells).arg(&n_i).launch(LaunchConfig::for_num_elems(n as u32))? };
    unsafe { stream.launch_builder(&pack).arg(&cells).arg(&mut edge).arg(&n_i).arg(&m_i).launch(LaunchConfig::for_num_elems(m as u32))? };
    stream.synchronize()?; // edge packed, incoming zeroed

    let mut reqs = [MPI_REQUEST_NULL; 2];
    reqs[0] = post_recv(incoming.device_ptr_mut(&stream).0, m);
    let right = if rank + 1 < size { rank + 1 } else { MPI_PROC_NULL };
    let e = edge.device_ptr(&stream).0;
    unsafe { MPI_Isend(e as *const c_void, m_i, MPI_DOUBLE, right, FLUX_TAG, MPI_COMM_WORLD, &mut reqs[1]) };

    // Reads `edge` too: two readers, no conflict.
    let one_block = LaunchConfig { grid_dim: (1, 1, 1), block_dim: (256, 1, 1), shared_mem_bytes: 0 };
    let launched = unsafe { stream.launch_builder(&norm).arg(&edge).arg(&mut sq_norm).arg(&m_i).launch(one_block) };

    unsafe { MPI_Waitall(2, reqs.as_mut_ptr(), MPI_STATUSES_IGNORE) };
    launched?; // report a failed launch only once no request uses the buffers

    unsafe { stream.launch_builder(&apply).arg(&mut cells).arg(&incoming).arg(&m_i).launch(LaunchConfig::for_num_elems(m as u32))? };
    stream.synchronize()?;
    Ok((cells, sq_norm))
}

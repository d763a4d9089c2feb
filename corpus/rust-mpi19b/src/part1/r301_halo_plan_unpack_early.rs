//! case: a halo-exchange struct posts its receive in `post()` and waits in `finish()`, but `advance()` launches the unpack kernel that reads the received ghost column between the two, while the CUDA-aware `MPI_Irecv` may still be writing it.
//! expect: missing_sync=1

use std::error::Error;
use std::ffi::{c_int, c_void};
use std::sync::Arc;

use cudarc::driver::{
    CudaContext, CudaFunction, CudaSlice, CudaStream, DevicePtr, DevicePtrMut, LaunchConfig,
    PushKernelArg,
};
use cudarc::nvrtc::compile_ptx;

use crate::ffi::{self, MPI_Comm, MPI_Request};

// Upwind transport with a positive velocity: each rank needs only its left neighbour's
// last column, and sends its own last column to the right.
const UPWIND: &str = r#"
extern "C" __global__ void pack_edge(const double* q, double* edge, int nx, int ny) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < ny) edge[j] = q[j * nx + nx - 1];
}
extern "C" __global__ void sweep_interior(const double* q, double* q_new, double c, int nx, int ny) {
    int j = blockIdx.y;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < ny && i >= 1 && i < nx) q_new[j * nx + i] = q[j * nx + i] - c * (q[j * nx + i] - q[j * nx + i - 1]);
}
extern "C" __global__ void sweep_first_column(const double* q, const double* ghost, double* q_new, double c, int nx, int ny) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < ny) q_new[j * nx] = q[j * nx] - c * (q[j * nx] - ghost[j]);
}
"#;

const TAG_EDGE: c_int = 31;

pub struct HaloPlan {
    stream: Arc<CudaStream>,
    comm: MPI_Comm,
    left: c_int,
    right: c_int,
    nx: usize,
    ny: usize,
    q: CudaSlice<f64>,
    q_new: CudaSlice<f64>,
    edge: CudaSlice<f64>,
    ghost: CudaSlice<f64>,
    reqs: Vec<MPI_Request>,
    pack: CudaFunction,
    interior: CudaFunction,
    first_column: CudaFunction,
}

impl HaloPlan {
    pub fn new(ctx: &Arc<CudaContext>, comm: MPI_Comm, nx: usize, ny: usize) -> Result<Self, Box<dyn Error>> {
        let (rank, size) = ffi::rank_and_size(comm)?;
        let stream = ctx.new_stream()?;
        let module = ctx.load_module(compile_ptx(UPWIND)?)?;
        let q = stream.alloc_zeros::<f64>(nx * ny)?;
        let q_new = stream.alloc_zeros::<f64>(nx * ny)?;
        let edge = stream.alloc_zeros::<f64>(ny)?;
        let ghost = stream.alloc_zeros::<f64>(ny)?;
        // The zero fills must land before MPI ever sees these buffers.
        stream.synchronize()?;
        Ok(Self {
            pack: module.load_function("pack_edge")?,
            interior: module.load_function("sweep_interior")?,
            first_column: module.load_function("sweep_first_column")?,
            stream,
            comm,
            left: (rank + size - 1) % size,
            right: (rank + 1) % size,
            nx,
            ny,
            q,
            q_new,
            edge,
            ghost,
            reqs: Vec::with_capacity(2),
        })
    }

    /// Starts the exchange: the ghost column from the left, our edge to the right.
    fn post(&mut self) {
        let n = self.ny as c_int;
        let ghost = self.ghost.device_ptr_mut(&self.stream).0 as *mut c_void;
        let edge = self.edge.device_ptr(&self.stream).0 as *const c_void;
        let (mut rx, mut tx) = (ffi::request_null(), ffi::request_null());
        unsafe {
            ffi::MPI_Irecv(ghost, n, ffi::dt_double(), self.left, TAG_EDGE, self.comm, &mut rx);
            ffi::MPI_Isend(edge, n, ffi::dt_double(), self.right, TAG_EDGE, self.comm, &mut tx);
        }
        self.reqs.push(rx);
        self.reqs.push(tx);
    }

    /// Completes every request `post()` started.
    fn finish(&mut self) -> Result<(), ffi::MpiError> {
        let rc = unsafe {
            ffi::MPI_Waitall(self.reqs.len() as c_int, self.reqs.as_mut_ptr(), ffi::MPI_STATUSES_IGNORE)
        };
        self.reqs.clear();
        ffi::check("MPI_Waitall", rc)
    }

    /// One upwind step with the exchange overlapped with the interior sweep.
    pub fn advance(&mut self, courant: f64) -> Result<(), Box<dyn Error>> {
        let (nx, ny) = (self.nx as c_int, self.ny as c_int);
        let cols = LaunchConfig::for_num_elems(self.ny as u32);
        let mut b = self.stream.launch_builder(&self.pack);
        b.arg(&self.q).arg(&mut self.edge).arg(&nx).arg(&ny);
        unsafe { b.launch(cols) }?;
        self.stream.synchronize()?; // the edge is packed: MPI may read it

        self.post();

        let grid = LaunchConfig {
            grid_dim: ((self.nx as u32).div_ceil(128), self.ny as u32, 1),
            block_dim: (128, 1, 1),
            shared_mem_bytes: 0,
        };
        let mut b = self.stream.launch_builder(&self.interior);
        b.arg(&self.q).arg(&mut self.q_new).arg(&courant).arg(&nx).arg(&ny);
        unsafe { b.launch(grid) }?;

        // The first column needs the neighbour's edge, which MPI is still receiving.
        let mut b = self.stream.launch_builder(&self.first_column);
        b.arg(&self.q).arg(&self.ghost).arg(&mut self.q_new).arg(&courant).arg(&nx).arg(&ny);
        let launched = unsafe { b.launch(cols) }; // EXPECT: missing_sync

        self.finish()?;
        launched?;
        std::mem::swap(&mut self.q, &mut self.q_new);
        Ok(())
    }
}

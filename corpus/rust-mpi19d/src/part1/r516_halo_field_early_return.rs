//! case: near miss of r515: a `HaloField` that owns its device buffers posts `MPI_Irecv`/`MPI_Isend` for the ghost row after synchronizing its stream, overlaps an interior kernel on other buffers, and propagates errors with `?` before its `MPI_Waitall`; on that early return nothing touches or frees the in-flight buffers (the struct keeps them), and on the normal path the kernel reading the ghost row runs after `MPI_Waitall` and the in-place `MPI_Allreduce` of the convergence value follows a stream synchronize.
//! expect: none

use std::ffi::{c_int, c_void};
use std::sync::Arc;

use cudarc::driver::{
    CudaContext, CudaFunction, CudaSlice, CudaStream, DevicePtr, DevicePtrMut, LaunchConfig, PushKernelArg, result,
};
use cudarc::nvrtc::compile_ptx;

use crate::bindings::*;

const HALO_SRC: &str = r#"
extern "C" __global__ void init_slab(float* u, int nx, int ny, int rank) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < nx * ny) u[i] = (float)((i / nx + rank) % 5);
}

extern "C" __global__ void copy_row(const float* u, float* row, int nx, int r) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    if (x < nx) row[x] = u[r * nx + x];
}

extern "C" __global__ void interior(const float* u, float* next, int nx, int ny) {
    int i = blockIdx.x * blockDim.x + threadIdx.x + 2 * nx;
    if (i >= (ny - 1) * nx) return;
    int x = i % nx;
    next[i] = (x == 0 || x == nx - 1) ? u[i] : 0.25f * (u[i - 1] + u[i + 1] + u[i - nx] + u[i + nx]);
}

extern "C" __global__ void boundary(const float* u, const float* ghost, float* next, int nx) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    if (x < nx) next[nx + x] = (x == 0 || x == nx - 1) ? u[nx + x] : 0.25f * (u[nx + x - 1] + u[nx + x + 1] + ghost[x] + u[2 * nx + x]);
}

// Largest |a - b| over the slab, as the bits of a non-negative float (they order like the floats).
extern "C" __global__ void max_delta(const float* a, const float* b, int n, unsigned int* out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicMax(out, __float_as_uint(fabsf(a[i] - b[i])));
}
"#;

const HALO_TAG: c_int = 71;

/// A slab of `nx` x `ny` cells whose row 0 mirrors the rank above (`up`), with every device
/// buffer it exchanges owned for its whole life.
pub struct HaloField {
    stream: Arc<CudaStream>,
    comm: MPI_Comm,
    up: c_int,
    down: c_int,
    nx: usize,
    ny: usize,
    u: CudaSlice<f32>,
    next: CudaSlice<f32>,
    ghost: CudaSlice<f32>,
    edge: CudaSlice<f32>,
    delta: CudaSlice<u32>,
    copy_row: CudaFunction,
    interior: CudaFunction,
    boundary: CudaFunction,
    max_delta: CudaFunction,
}

impl HaloField {
    pub fn new(ctx: &Arc<CudaContext>, comm: MPI_Comm, up: c_int, down: c_int, nx: usize, ny: usize) -> Result<Self, Box<dyn std::error::Error>> {
        let (rank, _size) = rank_and_size(comm)?;
        let stream = ctx.new_stream()?;
        let module = ctx.load_module(compile_ptx(HALO_SRC)?)?;
        let init = module.load_function("init_slab")?;
        let mut u = stream.alloc_zeros::<f32>(nx * ny)?;
        let next = stream.alloc_zeros::<f32>(nx * ny)?;
        let ghost = stream.alloc_zeros::<f32>(nx)?;
        let edge = stream.alloc_zeros::<f32>(nx)?;
        let delta = stream.alloc_zeros::<u32>(1)?;
        let (nx_i, ny_i) = (nx as i32, ny as i32);
        unsafe { stream.launch_builder(&init).arg(&mut u).arg(&nx_i).arg(&ny_i).arg(&rank).launch(LaunchConfig::for_num_elems((nx * ny) as u32)) }?;
        stream.synchronize()?;
        Ok(Self {
            copy_row: module.load_function("copy_row")?,
            interior: module.load_function("interior")?,
            boundary: module.load_function("boundary")?,
            max_delta: module.load_function("max_delta")?,
            stream, comm, up, down, nx, ny, u, next, ghost, edge, delta,
        })
    }

    /// One step: exchange the ghost row, compute the new slab into `next`, then swap it in.
    /// Returns the largest change of any cell on any rank.
    pub fn step(&mut self) -> Result<f32, Box<dyn std::error::Error>> {
        let (nx_i, ny_i, first_owned) = (self.nx as i32, self.ny as i32, 1i32);
        let row_cfg = LaunchConfig::for_num_elems(self.nx as u32);
        let interior_cfg = LaunchConfig::for_num_elems((self.nx * self.ny.saturating_sub(3)) as u32);

        unsafe { self.stream.launch_builder(&self.copy_row).arg(&self.u).arg(&mut self.edge).arg(&nx_i).arg(&first_owned).launch(row_cfg) }?;
        // The edge is packed, and the previous step's boundary kernel is done with the ghost row.
        self.stream.synchronize()?;

        let mut reqs = [MPI_REQUEST_NULL; 2];
        let ghost_ptr = self.ghost.device_ptr_mut(&self.stream).0;
        let edge_ptr = self.edge.device_ptr(&self.stream).0;
        mpi_check(unsafe { MPI_Irecv(ghost_ptr as *mut c_void, nx_i, MPI_FLOAT, self.up, HALO_TAG, self.comm, &mut reqs[0]) }, "MPI_Irecv")?;
        mpi_check(unsafe { MPI_Isend(edge_ptr as *const c_void, nx_i, MPI_FLOAT, self.down, HALO_TAG, self.comm, &mut reqs[1]) }, "MPI_Isend")?;

        // Interior rows touch neither the ghost row nor the edge row. An error here returns
        // with the requests outstanding; the buffers stay alive in `self` (the caller aborts).
        unsafe { self.stream.launch_builder(&self.interior).arg(&self.u).arg(&mut self.next).arg(&nx_i).arg(&ny_i).launch(interior_cfg) }?;

        mpi_check(unsafe { MPI_Waitall(2, reqs.as_mut_ptr(), MPI_STATUSES_IGNORE) }, "MPI_Waitall")?;

        // Both requests are complete.
        unsafe { self.stream.launch_builder(&self.boundary).arg(&self.u).arg(&self.ghost).arg(&mut self.next).arg(&nx_i).launch(row_cfg) }?;

        // Convergence: the global largest change, reduced in place on the device.
        let cells = (self.nx * self.ny) as i32;
        self.stream.memset_zeros(&mut self.delta)?;
        unsafe {
            self.stream
                .launch_builder(&self.max_delta)
                .arg(&self.next)
                .arg(&self.u)
                .arg(&cells)
                .arg(&mut self.delta)
                .launch(LaunchConfig::for_num_elems(cells as u32))
        }?;
        self.stream.synchronize()?;
        let delta_ptr = self.delta.device_ptr_mut(&self.stream).0;
        mpi_check(unsafe { MPI_Allreduce(MPI_IN_PLACE, delta_ptr as *mut c_void, 1, MPI_UNSIGNED, MPI_MAX, self.comm) }, "MPI_Allreduce")?;
        let mut bits = [0u32; 1];
        unsafe { result::memcpy_dtoh_sync(&mut bits[..], delta_ptr) }?;

        self.stream.memcpy_dtod(&self.next, &mut self.u)?;
        Ok(f32::from_bits(bits[0]))
    }

    /// Waits for the last step and hands out the slab.
    pub fn finish(self) -> Result<CudaSlice<f32>, Box<dyn std::error::Error>> {
        self.stream.synchronize()?;
        Ok(self.u)
    }
}

//! case: near miss of r402: a generic Exchanger<T> for the north/south ghost rows of a 2-D grid synchronizes its stream in start() before posting two MPI_Irecv and two MPI_Isend into a [MPI_Request; 4]; only the interior kernel (other buffers) runs while they are in flight, and both unpack kernels are launched after complete()'s MPI_Waitall.
//! expect: none

use std::ffi::{c_int, c_void};
use std::sync::Arc;

use cudarc::driver::{
    CudaContext, CudaFunction, CudaSlice, CudaStream, DevicePtr, DevicePtrMut, DeviceRepr,
    DriverError, LaunchConfig, PushKernelArg,
};
use cudarc::nvrtc::compile_ptx;

use crate::mpi_sys::*;

const TAG_NORTHWARD: c_int = 41;
const TAG_SOUTHWARD: c_int = 42;

pub struct Exchanger<T> {
    stream: Arc<CudaStream>,
    send_north: CudaSlice<T>,
    send_south: CudaSlice<T>,
    recv_north: CudaSlice<T>,
    recv_south: CudaSlice<T>,
    reqs: [MPI_Request; 4],
    north: c_int,
    south: c_int,
    row: c_int,
    dtype: MPI_Datatype,
    in_flight: bool,
}

impl<T: DeviceRepr> Exchanger<T> {
    pub fn new(stream: &Arc<CudaStream>, row: usize, north: c_int, south: c_int, dtype: MPI_Datatype) -> Result<Self, DriverError> {
        Ok(Self {
            stream: stream.clone(),
            send_north: unsafe { stream.alloc(row)? },
            send_south: unsafe { stream.alloc(row)? },
            recv_north: unsafe { stream.alloc(row)? },
            recv_south: unsafe { stream.alloc(row)? },
            reqs: [MPI_REQUEST_NULL; 4],
            north,
            south,
            row: row as c_int,
            dtype,
            in_flight: false,
        })
    }

    /// Waits for the packing work on the stream, then posts the exchange.
    pub fn start(&mut self) -> Result<(), DriverError> {
        self.stream.synchronize()?;
        let rn = self.recv_north.device_ptr_mut(&self.stream).0;
        let rs = self.recv_south.device_ptr_mut(&self.stream).0;
        let sn = self.send_north.device_ptr(&self.stream).0;
        let ss = self.send_south.device_ptr(&self.stream).0;
        let (c, t, w) = (self.row, self.dtype, MPI_COMM_WORLD);
        unsafe {
            MPI_Irecv(rn as *mut c_void, c, t, self.north, TAG_SOUTHWARD, w, &mut self.reqs[0]);
            MPI_Irecv(rs as *mut c_void, c, t, self.south, TAG_NORTHWARD, w, &mut self.reqs[1]);
            MPI_Isend(sn as *const c_void, c, t, self.north, TAG_NORTHWARD, w, &mut self.reqs[2]);
            MPI_Isend(ss as *const c_void, c, t, self.south, TAG_SOUTHWARD, w, &mut self.reqs[3]);
        }
        self.in_flight = true;
        Ok(())
    }

    /// Completes all four requests (entries already MPI_REQUEST_NULL are no-ops).
    pub fn complete(&mut self) {
        unsafe { MPI_Waitall(4, self.reqs.as_mut_ptr(), MPI_STATUSES_IGNORE) };
        self.in_flight = false;
    }
}

const GRID_SRC: &str = r#"
// Grid of (ny + 2) x nx doubles; rows 0 and ny + 1 are ghosts.
extern "C" __global__ void pack_rows(const double* g, double* north, double* south, int nx, int ny) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    if (x < nx) { north[x] = g[1 * nx + x]; south[x] = g[ny * nx + x]; }
}
extern "C" __global__ void smooth_interior(const double* g, double* out, int nx, int ny) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y + 2;
    if (x > 0 && x < nx - 1 && y < ny) {
        int i = y * nx + x;
        out[i] = 0.25 * (g[i - 1] + g[i + 1] + g[i - nx] + g[i + nx]);
    }
}
extern "C" __global__ void unpack_row(double* g, const double* row, int nx, int y) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    if (x < nx) g[y * nx + x] = row[x];
}
"#;

pub fn load_grid_kernels(ctx: &Arc<CudaContext>) -> Result<[CudaFunction; 3], Box<dyn std::error::Error>> {
    let m = ctx.load_module(compile_ptx(GRID_SRC)?)?;
    Ok([m.load_function("pack_rows")?, m.load_function("smooth_interior")?, m.load_function("unpack_row")?])
}

/// One smoothing sweep of `grid` into `out` with the ghost rows refreshed from the neighbours.
pub fn smooth_step(
    stream: &Arc<CudaStream>,
    k: &[CudaFunction; 3],
    ex: &mut Exchanger<f64>,
    grid: &mut CudaSlice<f64>,
    out: &mut CudaSlice<f64>,
    nx: usize,
    ny: usize,
) -> Result<(), DriverError> {
    let (nx_i, ny_i) = (nx as c_int, ny as c_int);
    let row_cfg = LaunchConfig::for_num_elems(nx as u32);

    let mut p = stream.launch_builder(&k[0]);
    p.arg(&*grid).arg(&mut ex.send_north).arg(&mut ex.send_south).arg(&nx_i).arg(&ny_i);
    unsafe { p.launch(row_cfg)? };

    ex.start()?;

    // Rows 2..ny-1 need no ghost row: overlap them with the exchange.
    let interior_cfg = LaunchConfig { grid_dim: ((nx as u32 + 127) / 128, ny as u32, 1), block_dim: (128, 1, 1), shared_mem_bytes: 0 };
    let mut s = stream.launch_builder(&k[1]);
    s.arg(&*grid).arg(&mut *out).arg(&nx_i).arg(&ny_i);
    unsafe { s.launch(interior_cfg)? };

    ex.complete();

    let (north_ghost, south_ghost) = (0 as c_int, ny_i + 1);
    let mut un = stream.launch_builder(&k[2]);
    un.arg(&mut *grid).arg(&ex.recv_north).arg(&nx_i).arg(&north_ghost);
    unsafe { un.launch(row_cfg)? };
    let mut us = stream.launch_builder(&k[2]);
    us.arg(&mut *grid).arg(&ex.recv_south).arg(&nx_i).arg(&south_ghost);
    unsafe { us.launch(row_cfg)? };

    stream.synchronize()
}

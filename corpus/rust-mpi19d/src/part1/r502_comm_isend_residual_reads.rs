//! case: near miss of r501: the same `Communicator` sends the first owned row and receives a ghost row, but the kernel overlapped with the requests only reads the field the send also reads (two reads never race) and writes a separate residual buffer; the update that writes the field and reads the ghost row runs after `wait_all`.
//! expect: none

use std::ffi::{c_int, c_void};
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaSlice, DevicePtr, DevicePtrMut, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

use crate::bindings::*;

const SMOOTHER_SRC: &str = r#"
extern "C" __global__ void init_field(float* u, int nx, int ny, float hot) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < nx * ny) u[i] = (i / nx == ny - 1) ? hot : 0.0f;
}

extern "C" __global__ void residual(const float* u, float* r, int nx, int ny) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= nx * ny) return;
    int x = i % nx, y = i / nx;
    if (x == 0 || y == 0 || x == nx - 1 || y == ny - 1) { r[i] = 0.0f; return; }
    r[i] = 0.25f * (u[i - 1] + u[i + 1] + u[i - nx] + u[i + nx]) - u[i];
}

extern "C" __global__ void update(float* u, const float* r, const float* ghost, int nx, int ny, float omega) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= nx * ny) return;
    if (i < nx) { u[i] = ghost[i]; return; }
    u[i] += omega * r[i];
}
"#;

/// One neighbour of a communicator, both directions.
pub struct Communicator {
    comm: MPI_Comm,
    peer: c_int,
    tag: c_int,
}

impl Communicator {
    pub fn new(comm: MPI_Comm, peer: c_int, tag: c_int) -> Self {
        Self { comm, peer, tag }
    }

    pub fn isend(&self, ptr: u64, n: usize) -> MPI_Request {
        let mut req = MPI_REQUEST_NULL;
        let rc = unsafe {
            MPI_Isend(ptr as *const c_void, n as c_int, MPI_FLOAT, self.peer, self.tag, self.comm, &mut req)
        };
        if rc != MPI_SUCCESS { MPI_REQUEST_NULL } else { req }
    }

    pub fn irecv(&self, ptr: u64, n: usize) -> MPI_Request {
        let mut req = MPI_REQUEST_NULL;
        let rc = unsafe {
            MPI_Irecv(ptr as *mut c_void, n as c_int, MPI_FLOAT, self.peer, self.tag, self.comm, &mut req)
        };
        if rc != MPI_SUCCESS { MPI_REQUEST_NULL } else { req }
    }

    pub fn wait_all(&self, reqs: &mut Vec<MPI_Request>) {
        if reqs.is_empty() {
            return;
        }
        unsafe { MPI_Waitall(reqs.len() as c_int, reqs.as_mut_ptr(), MPI_STATUSES_IGNORE) };
        reqs.clear();
    }
}

/// Smooths an `nx` x `ny` slab whose row 0 is a ghost copy of the neighbour's first owned row.
pub fn smooth_with_ghost_row(
    ctx: &Arc<CudaContext>,
    comm: &Communicator,
    nx: usize,
    ny: usize,
    sweeps: usize,
) -> Result<CudaSlice<f32>, Box<dyn std::error::Error>> {
    let stream = ctx.new_stream()?;
    let module = ctx.load_module(compile_ptx(SMOOTHER_SRC)?)?;
    let init = module.load_function("init_field")?;
    let residual = module.load_function("residual")?;
    let update = module.load_function("update")?;

    let n = nx * ny;
    let (nx_i, ny_i) = (nx as i32, ny as i32);
    let (hot, omega) = (100.0f32, 0.8f32);
    let cfg = LaunchConfig::for_num_elems(n as u32);

    let mut field = stream.alloc_zeros::<f32>(n)?;
    let mut resid = stream.alloc_zeros::<f32>(n)?;
    let mut ghost = stream.alloc_zeros::<f32>(nx)?;
    unsafe { stream.launch_builder(&init).arg(&mut field).arg(&nx_i).arg(&ny_i).arg(&hot).launch(cfg) }?;
    stream.synchronize()?;

    let row_bytes = (nx * std::mem::size_of::<f32>()) as u64;
    let mut reqs: Vec<MPI_Request> = Vec::with_capacity(2);
    for _sweep in 0..sweeps {
        let owned_row = field.device_ptr(&stream).0 + row_bytes;
        let ghost_ptr = ghost.device_ptr_mut(&stream).0;
        reqs.push(comm.irecv(ghost_ptr, nx));
        reqs.push(comm.isend(owned_row, nx));

        // Only reads `field` (as the send does) and writes `resid`, which MPI never sees.
        let launched = unsafe {
            stream.launch_builder(&residual).arg(&field).arg(&mut resid).arg(&nx_i).arg(&ny_i).launch(cfg)
        };

        comm.wait_all(&mut reqs);
        launched?;

        // Both requests are complete: the ghost row has landed and the field may change.
        unsafe {
            stream
                .launch_builder(&update)
                .arg(&mut field)
                .arg(&resid)
                .arg(&ghost)
                .arg(&nx_i)
                .arg(&ny_i)
                .arg(&omega)
                .launch(cfg)
        }?;
        stream.synchronize()?;
    }
    Ok(field)
}

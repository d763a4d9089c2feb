//! case: a Jacobi-style smoother publishes the first interior row of its device field with `Communicator::isend` every sweep and then launches the in-place relaxation kernel on that same field before `wait_all`, so the kernel overwrites the row MPI is still sending.
//! expect: missing_sync=1

use std::ffi::{c_int, c_void};
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaSlice, DevicePtr, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

use crate::bindings::*;

const SMOOTHER_SRC: &str = r#"
extern "C" __global__ void init_field(float* u, float* rhs, int nx, int ny) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < nx * ny) {
        int x = i % nx, y = i / nx;
        u[i] = 0.0f;
        rhs[i] = (x == nx / 2 && y == ny / 2) ? 1.0f : 0.0f;
    }
}

extern "C" __global__ void relax_inplace(float* u, const float* rhs, int nx, int ny, float omega) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= nx * ny) return;
    int x = i % nx, y = i / nx;
    if (x == 0 || y == 0 || x == nx - 1 || y == ny - 1) return;
    float nb = u[i - 1] + u[i + 1] + u[i - nx] + u[i + nx];
    u[i] = (1.0f - omega) * u[i] + omega * 0.25f * (nb + rhs[i]);
}
"#;

/// A thin wrapper over one peer of a communicator: the monitor rank that receives our rows.
pub struct Communicator {
    comm: MPI_Comm,
    peer: c_int,
    tag: c_int,
}

impl Communicator {
    pub fn new(comm: MPI_Comm, peer: c_int, tag: c_int) -> Self {
        Self { comm, peer, tag }
    }

    /// Starts sending `n` floats at device address `ptr` (CUDA-aware MPI) to the peer.
    pub fn isend(&self, ptr: u64, n: usize) -> MPI_Request {
        let mut req = MPI_REQUEST_NULL;
        let rc = unsafe {
            MPI_Isend(ptr as *const c_void, n as c_int, MPI_FLOAT, self.peer, self.tag, self.comm, &mut req)
        };
        if rc != MPI_SUCCESS { MPI_REQUEST_NULL } else { req }
    }

    /// Completes every request in `reqs` and empties it.
    pub fn wait_all(&self, reqs: &mut Vec<MPI_Request>) {
        if reqs.is_empty() {
            return;
        }
        unsafe { MPI_Waitall(reqs.len() as c_int, reqs.as_mut_ptr(), MPI_STATUSES_IGNORE) };
        reqs.clear();
    }
}

/// Runs `sweeps` over-relaxation sweeps of an `nx` x `ny` field and streams the first interior
/// row of each sweep's input to the peer of `comm` for live monitoring.
pub fn relax_and_publish(
    ctx: &Arc<CudaContext>,
    comm: &Communicator,
    nx: usize,
    ny: usize,
    sweeps: usize,
) -> Result<CudaSlice<f32>, Box<dyn std::error::Error>> {
    let stream = ctx.new_stream()?;
    let module = ctx.load_module(compile_ptx(SMOOTHER_SRC)?)?;
    let init = module.load_function("init_field")?;
    let relax = module.load_function("relax_inplace")?;

    let n = nx * ny;
    let (nx_i, ny_i) = (nx as i32, ny as i32);
    let omega = 1.6f32;
    let cfg = LaunchConfig::for_num_elems(n as u32);

    let mut field = stream.alloc_zeros::<f32>(n)?;
    let mut rhs = stream.alloc_zeros::<f32>(n)?;
    unsafe {
        stream
            .launch_builder(&init)
            .arg(&mut field)
            .arg(&mut rhs)
            .arg(&nx_i)
            .arg(&ny_i)
            .launch(cfg)
    }?;
    // The first row must exist before MPI reads it.
    stream.synchronize()?;

    let mut reqs: Vec<MPI_Request> = Vec::with_capacity(1);
    for _sweep in 0..sweeps {
        // Row 0 is the fixed boundary; row 1 is the first row this rank owns.
        let top_row = field.device_ptr(&stream).0 + (nx * std::mem::size_of::<f32>()) as u64;
        reqs.push(comm.isend(top_row, nx));

        // Overlap the next sweep with the send of the current top row.
        unsafe { stream.launch_builder(&relax).arg(&mut field).arg(&rhs).arg(&nx_i).arg(&ny_i).arg(&omega).launch(cfg) }?; // EXPECT: missing_sync

        comm.wait_all(&mut reqs);
        stream.synchronize()?;
    }
    Ok(field)
}

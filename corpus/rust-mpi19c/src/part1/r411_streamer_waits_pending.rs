//! case: near miss of r404: a BoundaryStreamer keeps its in-flight MPI_Isend in an Option<MPI_Request>, waits on it before the next pack kernel overwrites the cuMemAlloc'd send buffer, and its Drop impl waits on the pending request before freeing that buffer.
//! expect: none

use std::ffi::{c_int, c_void};
use std::mem::MaybeUninit;
use std::sync::Arc;

use cudarc::driver::{result, sys, CudaContext, CudaFunction, CudaSlice, CudaStream, DriverError, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

use crate::mpi_sys::*;

const BOUNDARY_TAG: c_int = 12;

const BOUNDARY_SRC: &str = r#"
extern "C" __global__ void evolve(float* f, int n, int step) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) f[i] = 0.5f * f[i] + 0.01f * (float)((i + step) % 7);
}
extern "C" __global__ void pack_edge(const float* f, float* edge, int n, int width) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < width) edge[i] = f[n - width + i];
}
"#;

/// Streams the right edge of an evolving field to a coupled solver on `peer`, one message per step.
pub struct BoundaryStreamer {
    stream: Arc<CudaStream>,
    evolve: CudaFunction,
    pack: CudaFunction,
    field: CudaSlice<f32>,
    edge: sys::CUdeviceptr,
    width: usize,
    peer: c_int,
    pending: Option<MPI_Request>,
}

impl BoundaryStreamer {
    pub fn new(ctx: &Arc<CudaContext>, n: usize, width: usize, peer: c_int) -> Result<Self, Box<dyn std::error::Error>> {
        let stream = ctx.new_stream()?;
        let m = ctx.load_module(compile_ptx(BOUNDARY_SRC)?)?;
        let evolve = m.load_function("evolve")?;
        let pack = m.load_function("pack_edge")?;
        let field = stream.alloc_zeros::<f32>(n)?;
        let mut edge = MaybeUninit::<sys::CUdeviceptr>::uninit();
        unsafe { sys::cuMemAlloc_v2(edge.as_mut_ptr(), width * std::mem::size_of::<f32>()) }.result()?;
        let edge = unsafe { edge.assume_init() };
        Ok(Self { stream, evolve, pack, field, edge, width, peer, pending: None })
    }

    /// Advances one step and ships the new edge without waiting for the previous message here.
    pub fn push(&mut self, step: usize) -> Result<(), DriverError> {
        let n = self.field.len();
        let (n_i, w_i, step_i) = (n as c_int, self.width as c_int, step as c_int);

        let mut ev = self.stream.launch_builder(&self.evolve);
        ev.arg(&mut self.field).arg(&n_i).arg(&step_i);
        unsafe { ev.launch(LaunchConfig::for_num_elems(n as u32))? };

        // The previous step's send still reads `edge`: finish it before repacking.
        if let Some(mut req) = self.pending.take() {
            unsafe { MPI_Wait(&mut req, MPI_STATUS_IGNORE) };
        }

        let mut pk = self.stream.launch_builder(&self.pack);
        pk.arg(&self.field).arg(&self.edge).arg(&n_i).arg(&w_i);
        unsafe { pk.launch(LaunchConfig::for_num_elems(self.width as u32))? };
        self.stream.synchronize()?;

        let mut req = MPI_REQUEST_NULL;
        unsafe {
            MPI_Isend(self.edge as *const c_void, w_i, MPI_FLOAT, self.peer, BOUNDARY_TAG, MPI_COMM_WORLD, &mut req);
        }
        self.pending = Some(req);
        Ok(())
    }

    pub fn flush(&mut self) {
        if let Some(mut req) = self.pending.take() {
            unsafe { MPI_Wait(&mut req, MPI_STATUS_IGNORE) };
        }
    }
}

impl Drop for BoundaryStreamer {
    fn drop(&mut self) {
        if let Some(mut req) = self.pending.take() {
            unsafe { MPI_Wait(&mut req, MPI_STATUS_IGNORE) };
        }
        let _ = self.stream.synchronize();
        unsafe {
            let _ = result::free_sync(self.edge);
        }
    }
}

pub fn couple(ctx: &Arc<CudaContext>, steps: usize, peer: c_int) -> Result<(), Box<dyn std::error::Error>> {
    let mut s = BoundaryStreamer::new(ctx, 1 << 20, 256, peer)?;
    for step in 0..steps {
        s.push(step)?;
    }
    s.flush();
    Ok(())
}

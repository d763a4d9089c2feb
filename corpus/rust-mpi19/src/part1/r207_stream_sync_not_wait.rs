//! case: a tensor-parallel layer posts MPI_Irecv for the peer's partial sums into device memory, runs its local GEMV, then calls stream.synchronize() believing that covers the receive and launches the combine kernel that reads the received partials; only MPI_Wait completes the request, and it comes after the launch.
//! expect: missing_sync=1

use std::error::Error;
use std::ffi::{c_int, c_void};
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaSlice, CudaStream, DevicePtrMut, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

use crate::mpi::*;

const TP_SRC: &str = r#"
extern "C" __global__ void local_gemv(const float* __restrict__ w_shard,
                                      const float* __restrict__ x,
                                      float* __restrict__ partial,
                                      int rows, int cols)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    float acc = 0.0f;
    for (int c = 0; c < cols; ++c) acc += w_shard[r * cols + c] * x[c];
    partial[r] = acc;
}

extern "C" __global__ void combine_partials(const float* __restrict__ mine,
                                            const float* __restrict__ theirs,
                                            float* __restrict__ y, int rows)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < rows) y[r] = mine[r] + theirs[r];
}
"#;

const TAG_PARTIAL: c_int = 300;

pub struct RowParallelLinear {
    pub w_shard: CudaSlice<f32>,
    pub rows: usize,
    pub cols_local: usize,
    pub peer: c_int,
}

impl RowParallelLinear {
    /// y = W x, with W split by columns over two ranks; each rank adds the peer's partial.
    pub fn forward(
        &self,
        ctx: &Arc<CudaContext>,
        stream: &Arc<CudaStream>,
        x_local: &CudaSlice<f32>,
        d_mine: &mut CudaSlice<f32>,
        d_theirs: &mut CudaSlice<f32>,
        y: &mut CudaSlice<f32>,
        send_req: &mut MPI_Request,
    ) -> Result<(), Box<dyn Error>> {
        let ptx = compile_ptx(TP_SRC)?;
        let module = ctx.load_module(ptx)?;
        let gemv = module.load_function("local_gemv")?;
        let combine = module.load_function("combine_partials")?;
        let rows = self.rows as i32;
        let cols = self.cols_local as i32;
        let cfg = LaunchConfig::for_num_elems(self.rows as u32);

        let mut recv_req: MPI_Request = MPI_REQUEST_NULL;
        let theirs_ptr = d_theirs.device_ptr_mut(stream).0;
        let rc = unsafe { MPI_Irecv(theirs_ptr as *mut c_void, rows, MPI_FLOAT, self.peer, TAG_PARTIAL, MPI_COMM_WORLD, &mut recv_req) };
        mpi_check(rc, "MPI_Irecv");

        let mut b = stream.launch_builder(&gemv);
        b.arg(&self.w_shard).arg(x_local).arg(&mut *d_mine).arg(&rows).arg(&cols);
        unsafe { b.launch(cfg)? };

        // Everything local is done here; the partial we send must be complete.
        stream.synchronize()?;
        let mine_ptr = d_mine.device_ptr_mut(stream).0;
        let rc = unsafe { MPI_Isend(mine_ptr as *const c_void, rows, MPI_FLOAT, self.peer, TAG_PARTIAL, MPI_COMM_WORLD, send_req) };
        mpi_check(rc, "MPI_Isend");

        let mut b = stream.launch_builder(&combine);
        b.arg(&*d_mine).arg(&*d_theirs).arg(&mut *y).arg(&rows);
        unsafe { b.launch(cfg)? }; // EXPECT: missing_sync

        let rc = unsafe { MPI_Wait(&mut recv_req, MPI_STATUS_IGNORE) };
        mpi_check(rc, "MPI_Wait");
        Ok(())
    }
}

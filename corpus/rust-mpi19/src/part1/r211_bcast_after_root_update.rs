//! case: a parameter server keeps replicated weights in cuMemAlloc_v2 memory; the root applies the aggregated update with a kernel launched through result::launch_kernel and every rank then calls MPI_Bcast on the weights with no synchronize, so on the root the broadcast reads weights the update kernel is still writing.
//! expect: missing_sync=1

use std::error::Error;
use std::ffi::{c_int, c_uint, c_void};
use std::sync::Arc;

use cudarc::driver::{result, sys, CudaContext, CudaSlice, CudaStream, DevicePtr};
use cudarc::nvrtc::compile_ptx;

use crate::mpi::*;

const UPDATE_SRC: &str = r#"
extern "C" __global__ void momentum_update(float* __restrict__ w,
                                           float* __restrict__ velocity,
                                           const float* __restrict__ grad_sum,
                                           float lr, float mu, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = mu * velocity[i] + grad_sum[i];
        velocity[i] = v;
        w[i] -= lr * v;
    }
}
"#;

/// Weights every rank holds a copy of; the root owns the optimizer state.
pub struct ReplicatedWeights {
    pub d_w: sys::CUdeviceptr,
    pub d_velocity: sys::CUdeviceptr,
    pub n: usize,
}

impl ReplicatedWeights {
    pub fn new(n: usize) -> Result<Self, Box<dyn Error>> {
        let bytes = n * std::mem::size_of::<f32>();
        let mut d_w: sys::CUdeviceptr = 0;
        unsafe { sys::cuMemAlloc_v2(&mut d_w, bytes).result()? };
        let mut d_velocity: sys::CUdeviceptr = 0;
        if let Err(e) = unsafe { sys::cuMemAlloc_v2(&mut d_velocity, bytes).result() } {
            unsafe { sys::cuMemFree_v2(d_w) };
            return Err(e.into());
        }
        unsafe {
            sys::cuMemsetD8_v2(d_w, 0, bytes);
            sys::cuMemsetD8_v2(d_velocity, 0, bytes);
        }
        Ok(Self { d_w, d_velocity, n })
    }

    /// Root: w -= lr * (mu * v + g). Then everyone gets the root's weights.
    pub fn update_and_broadcast(
        &mut self,
        ctx: &Arc<CudaContext>,
        stream: &Arc<CudaStream>,
        grad_sum: &CudaSlice<f32>,
        lr: f32,
        root: c_int,
    ) -> Result<(), Box<dyn Error>> {
        let rank = world_rank();
        if rank == root {
            let ptx = compile_ptx(UPDATE_SRC)?;
            let module = ctx.load_module(ptx)?;
            let update = module.load_function("momentum_update")?;

            let mut w = self.d_w;
            let mut vel = self.d_velocity;
            let mut g = grad_sum.device_ptr(stream).0;
            let mut lr = lr;
            let mut mu = 0.9f32;
            let mut n = self.n as i32;
            let mut params: [*mut c_void; 6] = [
                &mut w as *mut sys::CUdeviceptr as *mut c_void,
                &mut vel as *mut sys::CUdeviceptr as *mut c_void,
                &mut g as *mut sys::CUdeviceptr as *mut c_void,
                &mut lr as *mut f32 as *mut c_void,
                &mut mu as *mut f32 as *mut c_void,
                &mut n as *mut i32 as *mut c_void,
            ];
            let grid = (self.n as c_uint).div_ceil(256);
            unsafe {
                result::launch_kernel(update.cu_function(), (grid, 1, 1), (256, 1, 1), 0, stream.cu_stream(), &mut params)?
            };
        }

        let rc = unsafe { MPI_Bcast(self.d_w as *mut c_void, self.n as c_int, MPI_FLOAT, root, MPI_COMM_WORLD) }; // EXPECT: missing_sync
        mpi_check(rc, "MPI_Bcast");
        Ok(())
    }
}

impl Drop for ReplicatedWeights {
    fn drop(&mut self) {
        unsafe {
            sys::cuCtxSynchronize();
            sys::cuMemFree_v2(self.d_velocity);
            sys::cuMemFree_v2(self.d_w);
        }
    }
}

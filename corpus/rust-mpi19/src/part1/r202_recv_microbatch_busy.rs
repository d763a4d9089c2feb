//! case: a pipeline-parallel stage receives each micro-batch's activations with a blocking MPI_Recv into one device buffer that the previous micro-batch's forward kernel may still be reading (no synchronize inside the loop), so the receive overwrites its input.
//! expect: missing_sync=1

use std::error::Error;
use std::ffi::{c_int, c_void};
use std::sync::Arc;

use cudarc::driver::{
    CudaContext, CudaSlice, CudaStream, DevicePtr, DevicePtrMut, LaunchConfig, PushKernelArg,
};
use cudarc::nvrtc::compile_ptx;

use crate::mpi::*;

const FORWARD_SRC: &str = r#"
extern "C" __global__ void dense_relu(const float* __restrict__ act,
                                      const float* __restrict__ weight,
                                      const float* __restrict__ bias,
                                      float* __restrict__ out,
                                      int in_dim, int out_dim)
{
    int o = blockIdx.x * blockDim.x + threadIdx.x;
    if (o >= out_dim) return;
    float acc = bias[o];
    for (int k = 0; k < in_dim; ++k) {
        acc += weight[o * in_dim + k] * act[k];
    }
    out[o] = acc > 0.0f ? acc : 0.0f;
}
"#;

const TAG_ACT: c_int = 40;
const TAG_OUT: c_int = 41;

pub struct StageLayer {
    pub weight: CudaSlice<f32>,
    pub bias: CudaSlice<f32>,
    pub in_dim: usize,
    pub out_dim: usize,
}

/// Runs `micro_batches` micro-batches through this stage: receive from `prev`, compute,
/// and forward the whole stage output to `next` at the end.
pub fn run_stage(
    ctx: &Arc<CudaContext>,
    stream: &Arc<CudaStream>,
    layer: &StageLayer,
    d_act: &mut CudaSlice<f32>,
    d_out: &mut CudaSlice<f32>,
    micro_batches: usize,
    prev: c_int,
    next: c_int,
) -> Result<(), Box<dyn Error>> {
    assert!(d_act.len() >= layer.in_dim);
    assert!(d_out.len() >= micro_batches * layer.out_dim);

    let ptx = compile_ptx(FORWARD_SRC)?;
    let module = ctx.load_module(ptx)?;
    let forward = module.load_function("dense_relu")?;

    let in_dim = layer.in_dim as i32;
    let out_dim = layer.out_dim as i32;
    let cfg = LaunchConfig::for_num_elems(layer.out_dim as u32);

    for mb in 0..micro_batches {
        let d_act_ptr = d_act.device_ptr_mut(stream).0;
        let rc = unsafe { MPI_Recv(d_act_ptr as *mut c_void, in_dim, MPI_FLOAT, prev, TAG_ACT, MPI_COMM_WORLD, MPI_STATUS_IGNORE) }; // EXPECT: missing_sync
        mpi_check(rc, "MPI_Recv");

        let off = mb * layer.out_dim;
        let mut out_mb = d_out.slice_mut(off..off + layer.out_dim);
        let mut b = stream.launch_builder(&forward);
        b.arg(&*d_act)
            .arg(&layer.weight)
            .arg(&layer.bias)
            .arg(&mut out_mb)
            .arg(&in_dim)
            .arg(&out_dim);
        unsafe { b.launch(cfg)? };
    }

    stream.synchronize()?;
    let d_out_ptr = d_out.device_ptr(stream).0;
    let count = (micro_batches * layer.out_dim) as c_int;
    let rc = unsafe { MPI_Send(d_out_ptr as *const c_void, count, MPI_FLOAT, next, TAG_OUT, MPI_COMM_WORLD) };
    mpi_check(rc, "MPI_Send");
    Ok(())
}

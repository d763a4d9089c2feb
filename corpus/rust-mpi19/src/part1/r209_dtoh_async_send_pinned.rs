//! case: a checkpoint shard is staged to a pinned host buffer with cuMemcpyDtoHAsync_v2 and then sent to the I/O rank with a blocking MPI_Send of that pinned buffer without waiting for the stream, so MPI may send bytes the copy has not written yet.
//! expect: missing_sync=1

use std::error::Error;
use std::ffi::{c_int, c_void};
use std::sync::Arc;

use cudarc::driver::{sys, CudaContext, CudaSlice, CudaStream, DevicePtr, LaunchConfig, PinnedHostSlice, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

use crate::mpi::*;

const QUANT_SRC: &str = r#"
extern "C" __global__ void to_bf16_bits(const float* __restrict__ w,
                                        unsigned short* __restrict__ out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        unsigned int bits = __float_as_uint(w[i]);
        out[i] = (unsigned short)((bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16);
    }
}
"#;

const TAG_CKPT: c_int = 1000;

/// Writes this rank's weight shard, converted to bf16, to the checkpoint writer rank.
pub fn checkpoint_shard(
    ctx: &Arc<CudaContext>,
    stream: &Arc<CudaStream>,
    d_weights: &CudaSlice<f32>,
    d_bf16: &mut CudaSlice<u16>,
    h_stage: &mut PinnedHostSlice<u16>,
    io_rank: c_int,
) -> Result<(), Box<dyn Error>> {
    let n = d_weights.len();
    assert!(d_bf16.len() >= n && h_stage.len() >= n);

    let ptx = compile_ptx(QUANT_SRC)?;
    let module = ctx.load_module(ptx)?;
    let quant = module.load_function("to_bf16_bits")?;
    let n_i32 = n as i32;
    let mut b = stream.launch_builder(&quant);
    b.arg(d_weights).arg(&mut *d_bf16).arg(&n_i32);
    unsafe { b.launch(LaunchConfig::for_num_elems(n as u32))? };

    let h_ptr = h_stage.as_mut_ptr()?;
    let d_src = d_bf16.device_ptr(stream).0;
    let bytes = n * std::mem::size_of::<u16>();
    unsafe { sys::cuMemcpyDtoHAsync_v2(h_ptr as *mut c_void, d_src, bytes, stream.cu_stream()).result()? };

    let rc = unsafe { MPI_Send(h_ptr as *const c_void, bytes as c_int, MPI_BYTE, io_rank, TAG_CKPT, MPI_COMM_WORLD) }; // EXPECT: missing_sync
    mpi_check(rc, "MPI_Send");
    Ok(())
}

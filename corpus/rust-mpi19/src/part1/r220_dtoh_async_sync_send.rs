//! case: near miss: per-rank error norms are copied device-to-host with result::memcpy_dtoh_async into malloc_host pinned memory, the stream is synchronized, and then the pinned buffer goes to the root with MPI_Send; the stream is drained again before free_host.
//! expect: none

use std::error::Error;
use std::ffi::{c_int, c_void};
use std::sync::Arc;

use cudarc::driver::{result, CudaContext, CudaFunction, CudaSlice, CudaStream, DevicePtr, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

use crate::mpi::*;

const NORM_SRC: &str = r#"
extern "C" __global__ void field_sq_norms(const float* __restrict__ fields, float* __restrict__ norms,
                                          int n_fields, int len)
{
    int f = blockIdx.x;
    if (f >= n_fields) return;
    float s = 0.0f;
    for (int i = threadIdx.x; i < len; i += blockDim.x) s += fields[f * len + i] * fields[f * len + i];
    atomicAdd(&norms[f], s);
}
"#;

const TAG_NORMS: c_int = 12;

pub fn report_field_norms(
    ctx: &Arc<CudaContext>,
    stream: &Arc<CudaStream>,
    fields: &CudaSlice<f32>,
    n_fields: usize,
    root: c_int,
) -> Result<(), Box<dyn Error>> {
    let ptx = compile_ptx(NORM_SRC)?;
    let module = ctx.load_module(ptx)?;
    let norms_k = module.load_function("field_sq_norms")?;
    let mut d_norms = stream.alloc_zeros::<f32>(n_fields)?;

    let h_norms = unsafe { result::malloc_host(n_fields * std::mem::size_of::<f32>(), 0)? } as *mut f32;
    let sent = compute_and_send(stream, &norms_k, fields, &mut d_norms, h_norms, n_fields, root);
    let drained = stream.synchronize();
    unsafe { result::free_host(h_norms as *mut c_void)? };
    drained?;
    sent
}

fn compute_and_send(
    stream: &Arc<CudaStream>,
    norms_k: &CudaFunction,
    fields: &CudaSlice<f32>,
    d_norms: &mut CudaSlice<f32>,
    h_norms: *mut f32,
    n_fields: usize,
    root: c_int,
) -> Result<(), Box<dyn Error>> {
    let len = (fields.len() / n_fields) as i32;
    let nf = n_fields as i32;
    let cfg = LaunchConfig { grid_dim: (n_fields as u32, 1, 1), block_dim: (256, 1, 1), shared_mem_bytes: 0 };
    let mut b = stream.launch_builder(norms_k);
    b.arg(fields).arg(&mut *d_norms).arg(&nf).arg(&len);
    unsafe { b.launch(cfg)? };

    let host = unsafe { std::slice::from_raw_parts_mut(h_norms, n_fields) };
    let d_src = d_norms.device_ptr(stream).0;
    unsafe { result::memcpy_dtoh_async(host, d_src, stream.cu_stream())? };
    stream.synchronize()?;

    let rc = unsafe { MPI_Send(h_norms as *const c_void, nf, MPI_FLOAT, root, TAG_NORMS, MPI_COMM_WORLD) };
    mpi_check(rc, "MPI_Send");
    Ok(())
}

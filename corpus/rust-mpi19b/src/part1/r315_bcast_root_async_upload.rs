//! case: model weights are shared with `MPI_Bcast` on a `cuMemAlloc` buffer; a `match` on the rank's role makes the root stage them in pinned memory and upload them with `cuMemcpyHtoDAsync`, and the broadcast that reads them at the root follows with no wait for that copy.
//! expect: missing_sync=1

use std::error::Error;
use std::ffi::{c_int, c_void};
use std::sync::Arc;

use cudarc::driver::{CudaContext, DevicePtr, DriverError, LaunchConfig, PushKernelArg, result, sys};
use cudarc::nvrtc::compile_ptx;

use crate::ffi::{self, MPI_Comm};

const WEIGHTS: &str = r#"
extern "C" __global__ void fingerprint(const float* w, float* out, int n) {
    __shared__ float s[256];
    float acc = 0.f;
    for (int i = threadIdx.x; i < n; i += blockDim.x) acc += w[i] * (1.0f + (i % 7));
    s[threadIdx.x] = acc;
    __syncthreads();
    for (int k = blockDim.x / 2; k > 0; k >>= 1) { if (threadIdx.x < k) s[threadIdx.x] += s[threadIdx.x + k]; __syncthreads(); }
    if (threadIdx.x == 0) out[0] = s[0];
}
"#;

pub enum Role {
    Root,
    Follower,
}

struct Pinned {
    ptr: *mut f32,
    len: usize,
}

impl Pinned {
    fn new(len: usize) -> Result<Self, DriverError> {
        let ptr = unsafe { result::malloc_host(len * std::mem::size_of::<f32>(), 0) }? as *mut f32;
        Ok(Self { ptr, len })
    }
}

impl Drop for Pinned {
    fn drop(&mut self) {
        let _ = result::ctx::synchronize();
        let _ = unsafe { result::free_host(self.ptr as *mut c_void) };
    }
}

struct Device {
    ptr: sys::CUdeviceptr,
}

impl Drop for Device {
    fn drop(&mut self) {
        let _ = result::ctx::synchronize();
        let _ = unsafe { sys::cuMemFree_v2(self.ptr) };
    }
}

/// Distributes `n` weights from `root` (whose `weights` is read) and returns the fingerprint
/// every rank computes from its device copy.
pub fn share_weights(ctx: &Arc<CudaContext>, comm: MPI_Comm, role: Role, root: c_int, weights: &[f32], n: usize) -> Result<f32, Box<dyn Error>> {
    let stream = ctx.new_stream()?;
    let module = ctx.load_module(compile_ptx(WEIGHTS)?)?;
    let fingerprint = module.load_function("fingerprint")?;
    let bytes = n * std::mem::size_of::<f32>();

    let mut raw: sys::CUdeviceptr = 0;
    unsafe { sys::cuMemAlloc_v2(&mut raw, bytes) }.result()?;
    let d_w = Device { ptr: raw };
    let mut d_print = stream.alloc_zeros::<f32>(1)?;

    let staging = match role {
        Role::Root => {
            let stage = Pinned::new(n)?;
            unsafe { std::slice::from_raw_parts_mut(stage.ptr, stage.len) }.copy_from_slice(&weights[..n]);
            unsafe { sys::cuMemcpyHtoDAsync_v2(d_w.ptr, stage.ptr as *const c_void, bytes, stream.cu_stream()) }.result()?;
            Some(stage)
        }
        Role::Follower => None,
    };

    let rc = unsafe { ffi::MPI_Bcast(d_w.ptr as *mut c_void, n as c_int, ffi::dt_float(), root, comm) }; // EXPECT: missing_sync
    ffi::check("MPI_Bcast", rc)?;

    let n_i = n as c_int;
    let one_block = LaunchConfig { grid_dim: (1, 1, 1), block_dim: (256, 1, 1), shared_mem_bytes: 0 };
    let mut b = stream.launch_builder(&fingerprint);
    b.arg(&d_w.ptr).arg(&mut d_print).arg(&n_i);
    unsafe { b.launch(one_block) }?;
    stream.synchronize()?;
    let mut out = [0.0f32];
    unsafe { result::memcpy_dtoh_sync(&mut out, d_print.device_ptr(&stream).0) }?;
    drop(staging);
    Ok(out[0])
}

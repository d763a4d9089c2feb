//! case: squared magnitudes computed on a created stream come back with cuMemcpyDtoHAsync_v2 into a Vec (pageable), and the host sums the Vec before the stream is synchronized: right only because the driver copies to pageable memory synchronously
//! expect: relies_on_implicit_sync=1, pageable_async_copy=1

use std::error::Error;
use std::ffi::{CString, c_void};
use std::ptr;

use cudarc::driver::sys::{self, CUcontext, CUdevice, CUdeviceptr, CUfunction, CUmodule, CUstream, CUstream_flags};
use cudarc::nvrtc::compile_ptx;

const SRC: &str = r#"
extern "C" __global__ void magnitude2(const float2* z, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float2 v = z[i];
        out[i] = v.x * v.x + v.y * v.y;
    }
}
"#;

/// Total power of a complex signal given as interleaved (re, im) pairs.
pub fn total_power(interleaved: &[f32]) -> Result<f32, Box<dyn Error>> {
    assert!(interleaved.len() % 2 == 0);
    let n = interleaved.len() / 2;
    let ptx = compile_ptx(SRC)?;
    let image = CString::new(ptx.to_src())?;
    let name = CString::new("magnitude2")?;

    let mut dev: CUdevice = 0;
    let mut ctx: CUcontext = ptr::null_mut();
    let mut module: CUmodule = ptr::null_mut();
    let mut func: CUfunction = ptr::null_mut();
    let mut stream: CUstream = ptr::null_mut();
    unsafe {
        sys::cuInit(0).result()?;
        sys::cuDeviceGet(&mut dev, 0).result()?;
        sys::cuDevicePrimaryCtxRetain(&mut ctx, dev).result()?;
        sys::cuCtxSetCurrent(ctx).result()?;
        sys::cuModuleLoadData(&mut module, image.as_ptr().cast()).result()?;
        sys::cuModuleGetFunction(&mut func, module, name.as_ptr()).result()?;
        sys::cuStreamCreate(&mut stream, CUstream_flags::CU_STREAM_DEFAULT as u32).result()?;
    }

    let mut host = vec![0.0f32; n];
    let total;
    unsafe {
        let mut d_z: CUdeviceptr = 0;
        let mut d_out: CUdeviceptr = 0;
        let a1 = sys::cuMemAlloc_v2(&mut d_z, std::mem::size_of_val(interleaved));
        let a2 = sys::cuMemAlloc_v2(&mut d_out, n * 4);
        if let Err(e) = a1.result().and(a2.result()) {
            let _ = sys::cuMemFree_v2(d_z);
            let _ = sys::cuMemFree_v2(d_out);
            return Err(e.into());
        }
        let mut status =
            sys::cuMemcpyHtoD_v2(d_z, interleaved.as_ptr().cast(), std::mem::size_of_val(interleaved)).result();
        if status.is_ok() {
            let (mut p_z, mut p_out, mut n_i) = (d_z, d_out, n as i32);
            let mut args: [*mut c_void; 3] = [(&raw mut p_z).cast(), (&raw mut p_out).cast(), (&raw mut n_i).cast()];
            status = sys::cuLaunchKernel(func, n.div_ceil(256) as u32, 1, 1, 256, 1, 1, 0, stream, args.as_mut_ptr(), ptr::null_mut())
                .result();
        }
        if status.is_ok() {
            status = sys::cuMemcpyDtoHAsync_v2(host.as_mut_ptr().cast(), d_out, n * 4, stream).result(); // EXPECT: pageable_async_copy
        }
        total = host.iter().sum::<f32>(); // EXPECT: relies_on_implicit_sync

        let synced = sys::cuStreamSynchronize(stream).result();
        let _ = sys::cuMemFree_v2(d_z);
        let _ = sys::cuMemFree_v2(d_out);
        let _ = sys::cuStreamDestroy_v2(stream);
        let _ = sys::cuModuleUnload(module);
        let _ = sys::cuDevicePrimaryCtxRelease_v2(dev);
        status?;
        synced?;
    }
    Ok(total)
}

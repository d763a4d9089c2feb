//! case: bias-add and ReLU in place on a created stream with the bias in a temporary buffer; cuStreamSynchronize comes before the temporary's cuMemFree_v2, so the free waits for nothing undocumented
//! expect: none

use std::error::Error;
use std::ffi::{CString, c_void};
use std::ptr;

use cudarc::driver::sys::{self, CUdeviceptr, CUfunction, CUmodule, CUstream, CUstream_flags};
use cudarc::driver::CudaContext;
use cudarc::nvrtc::compile_ptx;

const SRC: &str = r#"
extern "C" __global__ void bias_relu(float* x, const float* bias, int features, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i] + bias[i % features];
        x[i] = v > 0.0f ? v : 0.0f;
    }
}
"#;

/// `activations` is row-major with `bias.len()` features per row.
pub fn bias_relu(activations: &[f32], bias: &[f32]) -> Result<Vec<f32>, Box<dyn Error>> {
    let n = activations.len();
    let features = bias.len();
    assert!(features > 0 && n % features == 0);
    let ctx = CudaContext::new(0)?;
    ctx.bind_to_thread()?;
    let ptx = compile_ptx(SRC)?;
    let image = CString::new(ptx.to_src())?;
    let name = CString::new("bias_relu")?;
    let mut module: CUmodule = ptr::null_mut();
    let mut func: CUfunction = ptr::null_mut();
    let mut stream: CUstream = ptr::null_mut();
    unsafe {
        sys::cuModuleLoadData(&mut module, image.as_ptr().cast()).result()?;
        sys::cuModuleGetFunction(&mut func, module, name.as_ptr()).result()?;
        sys::cuStreamCreate(&mut stream, CUstream_flags::CU_STREAM_DEFAULT as u32).result()?;
    }

    let mut out = vec![0.0f32; n];
    unsafe {
        let mut d_x: CUdeviceptr = 0;
        let mut d_bias: CUdeviceptr = 0;
        let a1 = sys::cuMemAlloc_v2(&mut d_x, n * 4);
        let a2 = sys::cuMemAlloc_v2(&mut d_bias, features * 4);
        if let Err(e) = a1.result().and(a2.result()) {
            let _ = sys::cuMemFree_v2(d_x);
            let _ = sys::cuMemFree_v2(d_bias);
            return Err(e.into());
        }
        let mut status = sys::cuMemcpyHtoD_v2(d_x, activations.as_ptr().cast(), n * 4)
            .result()
            .and(sys::cuMemcpyHtoD_v2(d_bias, bias.as_ptr().cast(), features * 4).result());
        if status.is_ok() {
            let (mut p_x, mut p_b, mut f, mut n_i) = (d_x, d_bias, features as i32, n as i32);
            let mut args: [*mut c_void; 4] =
                [(&raw mut p_x).cast(), (&raw mut p_b).cast(), (&raw mut f).cast(), (&raw mut n_i).cast()];
            status = sys::cuLaunchKernel(func, n.div_ceil(256) as u32, 1, 1, 256, 1, 1, 0, stream, args.as_mut_ptr(), ptr::null_mut())
                .result();
        }
        let synced = sys::cuStreamSynchronize(stream).result();
        let _ = sys::cuMemFree_v2(d_bias);
        if status.is_ok() && synced.is_ok() {
            status = sys::cuMemcpyDtoH_v2(out.as_mut_ptr().cast(), d_x, n * 4).result();
        }
        let _ = sys::cuMemFree_v2(d_x);
        let _ = sys::cuStreamDestroy_v2(stream);
        let _ = sys::cuModuleUnload(module);
        status?;
        synced?;
    }
    Ok(out)
}

//! case: a kernel writes a compressed block into d_out, which is then handed to an external GPU-direct storage writer (extern "C", body not in the crate) before cuMemFree_v2: a call that may read it
//! expect: none
use cudarc::driver::sys::{self, CUdeviceptr, CUresult};
use cudarc::driver::{CudaContext, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;
use std::ffi::c_void;

const N: usize = 16384;

const QUANT_SRC: &str = r#"
extern "C" __global__ void quantize(const float* in, signed char* out, float scale, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = (signed char)fmaxf(-127.0f, fminf(127.0f, in[i] * scale));
}
"#;

unsafe extern "C" {
    /// Writes `bytes` bytes of device memory at `dptr` to the open checkpoint file.
    fn ckpt_write_device(handle: i32, dptr: CUdeviceptr, bytes: usize, offset: u64) -> i64;
}

pub fn checkpoint_quantized(handle: i32, values: &[f32; N]) -> Result<i64, Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let f = ctx.load_module(compile_ptx(QUANT_SRC)?)?.load_function("quantize")?;

    let (mut d_in, mut d_out): (CUdeviceptr, CUdeviceptr) = (0, 0);
    let mut rcs = Vec::new();
    unsafe {
        rcs.push(sys::cuMemAlloc_v2(&mut d_in, N * 4));
        rcs.push(sys::cuMemAlloc_v2(&mut d_out, N));
        rcs.push(sys::cuMemcpyHtoD_v2(d_in, values.as_ptr() as *const c_void, N * 4));
    }
    let (scale, n) = (64.0f32, N as i32);
    let mut b = stream.launch_builder(&f);
    b.arg(&d_in).arg(&d_out).arg(&scale).arg(&n);
    let launched = unsafe { b.launch(LaunchConfig::for_num_elems(N as u32)) };
    let synced = stream.synchronize();
    let written = unsafe { ckpt_write_device(handle, d_out, N, 0) };
    unsafe {
        rcs.push(sys::cuMemFree_v2(d_in));
        rcs.push(sys::cuMemFree_v2(d_out));
    }
    launched?;
    synced?;
    if rcs.iter().any(|r| *r != CUresult::CUDA_SUCCESS) {
        return Err("checkpoint failed".into());
    }
    Ok(written)
}

//! case: raw cuMemAlloc_v2 buffers are passed to a cudarc launch whose error is propagated with `?` before the frees: a failed launch returns early and loses d_in and d_out (one leak per allocation)
//! expect: device_memory_leak=2
use cudarc::driver::sys::{self, CUdeviceptr, CUresult};
use cudarc::driver::{CudaContext, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;
use std::ffi::c_void;

const N: usize = 1024;
const BYTES: usize = N * 4;

const SQRT_SRC: &str = r#"
extern "C" __global__ void vsqrt(const float* in, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = sqrtf(in[i]);
}
"#;

pub fn vsqrt(values: &[f32; N]) -> Result<Vec<f32>, Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let f = ctx.load_module(compile_ptx(SQRT_SRC)?)?.load_function("vsqrt")?;

    let mut out = vec![0.0f32; N];
    let (mut d_in, mut d_out): (CUdeviceptr, CUdeviceptr) = (0, 0);
    unsafe {
        sys::cuMemAlloc_v2(&mut d_in, BYTES); // EXPECT: device_memory_leak
        sys::cuMemAlloc_v2(&mut d_out, BYTES); // EXPECT: device_memory_leak
        sys::cuMemcpyHtoD_v2(d_in, values.as_ptr() as *const c_void, BYTES);
    }
    let n = N as i32;
    let mut b = stream.launch_builder(&f);
    b.arg(&d_in).arg(&d_out).arg(&n);
    unsafe { b.launch(LaunchConfig::for_num_elems(N as u32)) }?;
    unsafe {
        sys::cuMemcpyDtoH_v2(out.as_mut_ptr() as *mut c_void, d_out, BYTES);
        sys::cuMemFree_v2(d_in);
        sys::cuMemFree_v2(d_out);
    }
    Ok(out)
}

//! case: raw driver API with a cudarc launch: the kernel's output d_out is copied back with cuMemcpyDtoH_v2 before cuMemFree_v2 releases it
//! expect: none
use cudarc::driver::sys::{self, CUdeviceptr, CUresult};
use cudarc::driver::{CudaContext, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;
use std::ffi::c_void;

const N: usize = 1024;
const BYTES: usize = N * 4;

const NEG_SRC: &str = r#"
extern "C" __global__ void negate(const float* in, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = -in[i];
}
"#;

pub fn negate(values: &[f32; N]) -> Result<Vec<f32>, Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let f = ctx.load_module(compile_ptx(NEG_SRC)?)?.load_function("negate")?;

    let mut h_out = vec![0.0f32; N];
    let (mut d_in, mut d_out): (CUdeviceptr, CUdeviceptr) = (0, 0);
    let mut rcs = Vec::new();
    unsafe {
        rcs.push(sys::cuMemAlloc_v2(&mut d_in, BYTES));
        rcs.push(sys::cuMemAlloc_v2(&mut d_out, BYTES));
        rcs.push(sys::cuMemcpyHtoD_v2(d_in, values.as_ptr() as *const c_void, BYTES));
    }
    let n = N as i32;
    let mut b = stream.launch_builder(&f);
    b.arg(&d_in).arg(&d_out).arg(&n);
    let launched = unsafe { b.launch(LaunchConfig::for_num_elems(N as u32)) };
    unsafe {
        rcs.push(sys::cuMemcpyDtoH_v2(h_out.as_mut_ptr() as *mut c_void, d_out, BYTES));
        rcs.push(sys::cuMemFree_v2(d_in));
        rcs.push(sys::cuMemFree_v2(d_out));
    }
    launched?;
    if rcs.iter().any(|r| *r != CUresult::CUDA_SUCCESS) {
        return Err("negate failed".into());
    }
    Ok(h_out)
}

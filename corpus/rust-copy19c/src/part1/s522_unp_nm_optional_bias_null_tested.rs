//! case: near miss: a CUdeviceptr of 0 is passed for an optional bias argument, and the kernel tests it (`if (bias)`) before reading it
//! expect: none

use cudarc::driver::{CudaContext, LaunchConfig, PushKernelArg};
use cudarc::driver::sys;
use cudarc::nvrtc::compile_ptx;

const SRC: &str = r#"
extern "C" __global__ void dense_act(const float* x, const float* bias, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
    if (bias != nullptr) {
        v += bias[i];
    }
    y[i] = v > 0.0f ? v : 0.0f;
}
"#;

const N: usize = 4096;

pub fn relu_without_bias(input: &[f32]) -> Result<Vec<f32>, Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let f = ctx.load_module(compile_ptx(SRC)?)?.load_function("dense_act")?;
    let x = stream.clone_htod(&input[..N])?;
    let mut y = stream.alloc_zeros::<f32>(N)?;
    let no_bias: sys::CUdeviceptr = 0;
    let n = N as i32;
    let mut b = stream.launch_builder(&f);
    b.arg(&x).arg(&no_bias).arg(&mut y).arg(&n);
    unsafe { b.launch(LaunchConfig::for_num_elems(N as u32))? };
    Ok(stream.clone_dtoh(&y)?)
}

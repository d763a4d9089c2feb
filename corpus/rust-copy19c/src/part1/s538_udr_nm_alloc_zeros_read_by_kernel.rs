//! case: near miss: a bias vector from alloc_zeros (memset by cudarc) is read by a kernel without any upload
//! expect: none

use cudarc::driver::{CudaContext, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const SRC: &str = r#"
extern "C" __global__ void add_bias(const float* x, const float* bias, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] + bias[i];
}
"#;

const N: usize = 1024;

pub fn forward_untrained(x_host: &[f32]) -> Result<Vec<f32>, Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let f = ctx.load_module(compile_ptx(SRC)?)?.load_function("add_bias")?;
    let x = stream.clone_htod(&x_host[..N])?;
    let bias = stream.alloc_zeros::<f32>(N)?;
    let mut y = unsafe { stream.alloc::<f32>(N)? };
    let n = N as i32;
    let mut b = stream.launch_builder(&f);
    b.arg(&x).arg(&bias).arg(&mut y).arg(&n);
    unsafe { b.launch(LaunchConfig::for_num_elems(N as u32))? };
    Ok(stream.clone_dtoh(&y)?)
}

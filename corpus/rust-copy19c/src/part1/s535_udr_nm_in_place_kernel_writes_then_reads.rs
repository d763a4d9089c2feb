//! case: near miss: an unset buffer from the unsafe `alloc` is given to a kernel that writes each element before reading it back in place
//! expect: none

use cudarc::driver::{CudaContext, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const SRC: &str = r#"
extern "C" __global__ void softplus_inplace(const float* x, float* buf, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        buf[i] = expf(x[i]);
        buf[i] = logf(1.0f + buf[i]);
    }
}
"#;

const N: usize = 4096;

pub fn softplus(x_host: &[f32]) -> Result<Vec<f32>, Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let f = ctx.load_module(compile_ptx(SRC)?)?.load_function("softplus_inplace")?;
    let x = stream.clone_htod(&x_host[..N])?;
    let mut buf = unsafe { stream.alloc::<f32>(N)? };
    let n = N as i32;
    let mut b = stream.launch_builder(&f);
    b.arg(&x).arg(&mut buf).arg(&n);
    unsafe { b.launch(LaunchConfig::for_num_elems(N as u32))? };
    Ok(stream.clone_dtoh(&buf)?)
}

//! case: cudarc: the kernel writes `out`, but clone_dtoh copies back `inp` by mistake, and `out` is dropped (freed) unread
//! expect: unread_kernel_output=1

use cudarc::driver::{CudaContext, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const SRC: &str = r#"
extern "C" __global__ void clamp01(const float* inp, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = fminf(fmaxf(inp[i], 0.0f), 1.0f);
}
"#;

const N: usize = 4096;

pub fn clamp(values: &[f32]) -> Result<Vec<f32>, Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let f = ctx.load_module(compile_ptx(SRC)?)?.load_function("clamp01")?;
    let inp = stream.clone_htod(&values[..N])?;
    let mut out = stream.alloc_zeros::<f32>(N)?;
    let n = N as i32;
    let mut b = stream.launch_builder(&f);
    b.arg(&inp).arg(&mut out).arg(&n);
    unsafe { b.launch(LaunchConfig::for_num_elems(N as u32))? };
    let clamped = stream.clone_dtoh(&inp)?;
    drop(out); // EXPECT: unread_kernel_output
    Ok(clamped)
}

//! case: cudarc: a kernel writes d_out and the function returns the CudaSlice to its caller, which may read it: handing the output over is a read
//! expect: none
use cudarc::driver::{CudaContext, CudaSlice, CudaStream, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;
use std::sync::Arc;

const N: usize = 1024;

const LERP_SRC: &str = r#"
extern "C" __global__ void lerp(const float* a, const float* b, float t, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a[i] + t * (b[i] - a[i]);
}
"#;

pub fn lerp_on_device(
    stream: &Arc<CudaStream>,
    a: &[f32; N],
    b: &[f32; N],
    t: f32,
) -> Result<CudaSlice<f32>, Box<dyn std::error::Error>> {
    let ctx = stream.context();
    let f = ctx.load_module(compile_ptx(LERP_SRC)?)?.load_function("lerp")?;
    let d_a = stream.clone_htod(a)?;
    let d_b = stream.clone_htod(b)?;
    let mut d_out = stream.alloc_zeros::<f32>(N)?;
    let n = N as i32;
    let mut lb = stream.launch_builder(&f);
    lb.arg(&d_a).arg(&d_b).arg(&t).arg(&mut d_out).arg(&n);
    unsafe { lb.launch(LaunchConfig::for_num_elems(N as u32)) }?;
    Ok(d_out)
}

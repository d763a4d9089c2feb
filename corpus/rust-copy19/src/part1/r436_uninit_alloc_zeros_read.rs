//! case: cudarc: a running-minimum buffer from alloc_zeros is read by a kernel (read-only parameter) and copied back; alloc_zeros memsets it, so nothing is uninitialized
//! expect: none
use cudarc::driver::{CudaContext, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const N: usize = 1024;

const CLAMP_SRC: &str = r#"
extern "C" __global__ void clamp_below(const float* floor_v, const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = fmaxf(x[i], floor_v[i]);
}
"#;

pub fn clamp(x: &[f32; N]) -> Result<(Vec<f32>, Vec<f32>), Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let f = ctx.load_module(compile_ptx(CLAMP_SRC)?)?.load_function("clamp_below")?;

    let d_floor = stream.alloc_zeros::<f32>(N)?;
    let d_x = stream.clone_htod(x)?;
    let mut d_y = stream.alloc_zeros::<f32>(N)?;
    let n = N as i32;
    let mut b = stream.launch_builder(&f);
    b.arg(&d_floor).arg(&d_x).arg(&mut d_y).arg(&n);
    unsafe { b.launch(LaunchConfig::for_num_elems(N as u32)) }?;
    let floor_host = stream.clone_dtoh(&d_floor)?;
    let y = stream.clone_dtoh(&d_y)?;
    stream.synchronize()?;
    Ok((floor_host, y))
}

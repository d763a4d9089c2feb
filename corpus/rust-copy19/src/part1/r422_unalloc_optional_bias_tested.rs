//! case: a dense-layer kernel takes an optional bias pointer and tests it (`if (bias)`) before reading; the host passes CUdeviceptr 0 when the layer has no bias, which is fine
//! expect: none
use cudarc::driver::sys::CUdeviceptr;
use cudarc::driver::{CudaContext, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const IN: usize = 32;
const OUT: usize = 16;

const DENSE_SRC: &str = r#"
extern "C" __global__ void dense(const float* w, const float* x, const float* bias, float* y, int in, int out) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= out) return;
    float acc = 0.0f;
    for (int k = 0; k < in; ++k) acc += w[j * in + k] * x[k];
    if (bias != nullptr) acc += bias[j];
    y[j] = acc;
}
"#;

pub fn dense_no_bias(w: &[f32; IN * OUT], x: &[f32; IN]) -> Result<Vec<f32>, Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let f = ctx.load_module(compile_ptx(DENSE_SRC)?)?.load_function("dense")?;

    let d_w = stream.clone_htod(w)?;
    let d_x = stream.clone_htod(x)?;
    let no_bias: CUdeviceptr = 0;
    let mut d_y = stream.alloc_zeros::<f32>(OUT)?;
    let (n_in, n_out) = (IN as i32, OUT as i32);
    let mut b = stream.launch_builder(&f);
    b.arg(&d_w).arg(&d_x).arg(&no_bias).arg(&mut d_y).arg(&n_in).arg(&n_out);
    unsafe { b.launch(LaunchConfig::for_num_elems(OUT as u32)) }?;
    let y = stream.clone_dtoh(&d_y)?;
    stream.synchronize()?;
    Ok(y)
}

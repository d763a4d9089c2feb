//! case: an encoder launches a kernel into a CudaSlice and returns the slice to its caller (the result is handed over, not thrown away); a caller downloads it.
//! expect: none
use cudarc::driver::{CudaContext, CudaSlice, CudaStream, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;
use std::sync::Arc;

const GELU_SRC: &str = r#"
extern "C" __global__ void gelu(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { float v = x[i]; y[i] = 0.5f * v * (1.0f + tanhf(0.7978845608f * (v + 0.044715f * v * v * v))); }
}
"#;

const HIDDEN: usize = 3072;

pub fn gelu_on_device(stream: &Arc<CudaStream>, x: &[f32]) -> Result<CudaSlice<f32>, Box<dyn std::error::Error>> {
    let ctx = stream.context();
    let f = ctx.load_module(compile_ptx(GELU_SRC)?)?.load_function("gelu")?;
    let d_x = stream.clone_htod(&x[..HIDDEN])?;
    let mut d_y = stream.alloc_zeros::<f32>(HIDDEN)?;
    let n = HIDDEN as i32;
    unsafe { stream.launch_builder(&f).arg(&d_x).arg(&mut d_y).arg(&n).launch(LaunchConfig::for_num_elems(HIDDEN as u32)) }?;
    Ok(d_y)
}

pub fn gelu_host(x: &[f32]) -> Result<Vec<f32>, Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let d_y = gelu_on_device(&stream, x)?;
    Ok(stream.clone_dtoh(&d_y)?)
}

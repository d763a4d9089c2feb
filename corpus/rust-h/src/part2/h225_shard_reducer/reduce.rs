use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, DriverError, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const BACKWARD_SRC: &str = r#"
extern "C" __global__ void relu_backward(const float* act, const float* up, float* grad, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) grad[i] = act[i] > 0.0f ? up[i] : 0.0f;
}
"#;

pub fn load(ctx: &Arc<CudaContext>) -> Result<CudaFunction, Box<dyn std::error::Error>> {
    Ok(ctx.load_module(compile_ptx(BACKWARD_SRC)?)?.load_function("relu_backward")?)
}

pub fn backward(
    stream: &Arc<CudaStream>,
    f: &CudaFunction,
    act: &CudaSlice<f32>,
    up: &CudaSlice<f32>,
    grad: &mut CudaSlice<f32>,
) -> Result<(), DriverError> {
    let n = grad.len() as u32;
    unsafe { stream.launch_builder(f).arg(act).arg(up).arg(grad).arg(&n).launch(LaunchConfig::for_num_elems(n))? };
    Ok(())
}

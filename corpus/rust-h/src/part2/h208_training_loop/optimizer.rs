use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const SGD_SRC: &str = r#"
extern "C" __global__ void sgd_step(float* w, const float* g, float lr, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) w[i] -= lr * g[i];
}
"#;

pub struct Sgd {
    step: CudaFunction,
    lr: f32,
}

impl Sgd {
    pub fn new(ctx: &Arc<CudaContext>, lr: f32) -> Result<Self, Box<dyn std::error::Error>> {
        let step = ctx.load_module(compile_ptx(SGD_SRC)?)?.load_function("sgd_step")?;
        Ok(Self { step, lr })
    }

    pub fn apply(&self, stream: &Arc<CudaStream>, w: &mut CudaSlice<f32>, g: &CudaSlice<f32>) -> Result<(), Box<dyn std::error::Error>> {
        let n = w.len() as u32;
        unsafe { stream.launch_builder(&self.step).arg(w).arg(g).arg(&self.lr).arg(&n).launch(LaunchConfig::for_num_elems(n))? };
        Ok(())
    }
}

//! case: cudarc's safe API: the input `CudaSlice` is dropped right after the launch (stream-ordered free), the result comes back with `clone_dtoh`
//! expect: pageable_async_copy=2

use std::error::Error;

use cudarc::driver::{CudaContext, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const SRC: &str = r#"
extern "C" __global__ void gelu(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        y[i] = 0.5f * v * (1.0f + tanhf(0.7978845608f * (v + 0.044715f * v * v * v)));
    }
}
"#;

pub fn gelu(x: &[f32]) -> Result<Vec<f32>, Box<dyn Error>> {
    let n = x.len();
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let func = ctx.load_module(compile_ptx(SRC)?)?.load_function("gelu")?;

    let d_x = stream.clone_htod(x)?; // EXPECT: pageable_async_copy
    let mut d_y = stream.alloc_zeros::<f32>(n)?;
    let n_i = n as i32;
    let mut launch = stream.launch_builder(&func);
    launch.arg(&d_x).arg(&mut d_y).arg(&n_i);
    unsafe { launch.launch(LaunchConfig::for_num_elems(n as u32))? };
    drop(d_x);

    let y = stream.clone_dtoh(&d_y)?; // EXPECT: pageable_async_copy
    Ok(y)
}

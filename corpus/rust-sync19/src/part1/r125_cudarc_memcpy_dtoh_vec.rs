//! case: cudarc's safe API: a smoothing kernel's output is copied with CudaStream::memcpy_dtoh into an existing Vec and summed; cudarc's copies into host slices are taken to synchronize themselves, so the read relies on nothing undocumented (both copies are pageable)
//! expect: pageable_async_copy=2

use std::error::Error;

use cudarc::driver::{CudaContext, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const SRC: &str = r#"
extern "C" __global__ void moving_average3(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float l = x[i > 0 ? i - 1 : i];
        float r = x[i < n - 1 ? i + 1 : i];
        y[i] = (l + x[i] + r) / 3.0f;
    }
}
"#;

/// Smooths `series` and returns it with its mean.
pub fn smooth(series: &[f32]) -> Result<(Vec<f32>, f32), Box<dyn Error>> {
    let n = series.len();
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let f = ctx.load_module(compile_ptx(SRC)?)?.load_function("moving_average3")?;

    let host_x: Vec<f32> = series.to_vec();
    let d_x = stream.clone_htod(&host_x)?; // EXPECT: pageable_async_copy
    let mut d_y = stream.alloc_zeros::<f32>(n)?;
    let n_i = n as i32;
    unsafe {
        stream
            .launch_builder(&f)
            .arg(&d_x)
            .arg(&mut d_y)
            .arg(&n_i)
            .launch(LaunchConfig::for_num_elems(n as u32))?;
    }
    let mut host_y = vec![0.0f32; n];
    stream.memcpy_dtoh(&d_y, &mut host_y)?; // EXPECT: pageable_async_copy
    let mean = host_y.iter().sum::<f32>() / n.max(1) as f32;
    Ok((host_y, mean))
}

//! case: cudarc's safe API: the per-row scale factors are a CudaSlice dropped right after the launch that reads them; CudaSlice's Drop frees in stream order (or synchronizes first), so nothing relies on an implicit wait; the Vec copies are pageable
//! expect: pageable_async_copy=3

use std::error::Error;

use cudarc::driver::{CudaContext, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const SRC: &str = r#"
extern "C" __global__ void scale_rows(const float* m, const float* row_scale, float* out, int rows, int cols) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < rows * cols) out[i] = m[i] * row_scale[i / cols];
}
"#;

/// Scales every row of a row-major `rows` x `cols` matrix to unit maximum.
pub fn unit_max_rows(m: &[f32], rows: usize, cols: usize) -> Result<Vec<f32>, Box<dyn Error>> {
    assert_eq!(m.len(), rows * cols);
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let module = ctx.load_module(compile_ptx(SRC)?)?;
    let scale_rows = module.load_function("scale_rows")?;

    let host_m: Vec<f32> = m.to_vec();
    let scales: Vec<f32> = host_m
        .chunks(cols)
        .map(|row| {
            let max = row.iter().fold(0.0f32, |a, v| a.max(v.abs()));
            if max > 0.0 { 1.0 / max } else { 1.0 }
        })
        .collect();

    let d_m = stream.clone_htod(&host_m)?; // EXPECT: pageable_async_copy
    let d_scales = stream.clone_htod(&scales)?; // EXPECT: pageable_async_copy
    let mut d_out = stream.alloc_zeros::<f32>(rows * cols)?;
    let (r, c) = (rows as i32, cols as i32);
    let cfg = LaunchConfig::for_num_elems((rows * cols) as u32);
    unsafe {
        stream
            .launch_builder(&scale_rows)
            .arg(&d_m)
            .arg(&d_scales)
            .arg(&mut d_out)
            .arg(&r)
            .arg(&c)
            .launch(cfg)?;
    }
    drop(d_scales);
    let out = stream.clone_dtoh(&d_out)?; // EXPECT: pageable_async_copy
    Ok(out)
}

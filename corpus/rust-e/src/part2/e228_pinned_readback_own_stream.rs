//! case: near-miss of the single-stream pinned readback: this context creates its own non-blocking stream, so cudarc tracks events; the copy into the pinned buffer (flags 0) records one and `as_slice` waits on it before the host computes the row norms
//! expect: none

use cudarc::driver::{CudaContext, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const ROWNORM_SRC: &str = r#"
extern "C" __global__ void l2_normalize_rows(float* x, int rows, int cols) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    float s = 0.f;
    for (int c = 0; c < cols; ++c) s += x[r * cols + c] * x[r * cols + c];
    float inv = rsqrtf(s + 1e-12f);
    for (int c = 0; c < cols; ++c) x[r * cols + c] *= inv;
}
"#;

/// Normalizes each row on the GPU and returns the per-row norms after normalization (all ~1.0),
/// which the caller uses as a sanity check.
pub fn normalize_rows(ordinal: usize, rows: usize, cols: usize, input: &[f32]) -> Result<Vec<f32>, Box<dyn std::error::Error>> {
    assert_eq!(input.len(), rows * cols);
    let ctx = CudaContext::new(ordinal)?;
    let stream = ctx.new_stream()?;
    let f = ctx.load_module(compile_ptx(ROWNORM_SRC)?)?.load_function("l2_normalize_rows")?;

    let mut staging = unsafe { ctx.alloc_pinned::<f32>(input.len())? };
    staging.as_mut_slice()?.copy_from_slice(input);
    let mut x = stream.clone_htod(&staging)?;

    let (r, c) = (rows as i32, cols as i32);
    let mut launch = stream.launch_builder(&f);
    launch.arg(&mut x).arg(&r).arg(&c);
    unsafe { launch.launch(LaunchConfig::for_num_elems(rows as u32))? };

    let mut out = unsafe { ctx.alloc_pinned_with_flags::<f32>(input.len(), 0)? };
    stream.memcpy_dtoh(&x, &mut out)?;
    let norms = out
        .as_slice()?
        .chunks(cols)
        .map(|row| row.iter().map(|v| v * v).sum::<f32>().sqrt())
        .collect();
    Ok(norms)
}

//! Gradient accumulation over micro-batches of a linear regression model: one
//! captured graph uploads a micro-batch from a pinned staging buffer and adds
//! its gradient into a device accumulator. The loop refills the staging buffer
//! for the next micro-batch right after launching, with no wait: the previous
//! launch's captured upload may still be reading it.

use cudarc::driver::{sys, CudaContext, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

const GRAD_KERNEL: &str = r#"
// Each micro-batch row is [features..., target]; grad += x * (w.x - y) / rows.
extern "C" __global__ void accumulate_grad(const float *batch, const float *w, float *grad,
                                           int rows, int features) {
    int f = blockIdx.x * blockDim.x + threadIdx.x;
    if (f >= features) return;
    int stride = features + 1;
    float acc = 0.0f;
    for (int r = 0; r < rows; ++r) {
        const float *row = batch + (size_t)r * stride;
        float pred = 0.0f;
        for (int k = 0; k < features; ++k) pred += w[k] * row[k];
        acc += row[f] * (pred - row[features]);
    }
    grad[f] += acc / rows;
}
"#;

pub fn accumulate_gradients(
    weights: &[f32],
    micro_batches: &[Vec<f32>],
    rows: usize,
    features: usize,
) -> Result<Vec<f32>> {
    let ctx = CudaContext::new(0)?;
    unsafe { ctx.disable_event_tracking() };
    let stream = ctx.new_stream()?;
    let module = ctx.load_module(compile_ptx(GRAD_KERNEL)?)?;
    let accumulate = module.load_function("accumulate_grad")?;

    let stride = features + 1;
    let mut d_w = stream.alloc_zeros::<f32>(features)?;
    let mut d_batch = stream.alloc_zeros::<f32>(rows * stride)?;
    let mut d_grad = stream.alloc_zeros::<f32>(features)?;
    let mut h_w = unsafe { ctx.alloc_pinned::<f32>(features)? };
    h_w.as_mut_slice()?.copy_from_slice(&weights[..features]);
    stream.memcpy_htod(&h_w, &mut d_w)?;
    stream.synchronize()?;

    let mut h_batch = unsafe { ctx.alloc_pinned::<f32>(rows * stride)? };
    let mut h_grad = unsafe { ctx.alloc_pinned_with_flags::<f32>(features, 0)? };
    let (r, f) = (rows as i32, features as i32);

    stream.begin_capture(sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_GLOBAL)?;
    stream.memcpy_htod(&h_batch, &mut d_batch)?;
    let mut k = stream.launch_builder(&accumulate);
    k.arg(&d_batch).arg(&d_w).arg(&mut d_grad).arg(&r).arg(&f);
    unsafe { k.launch(LaunchConfig::for_num_elems(features as u32)) }?;
    let micro_step = stream
        .end_capture(sys::CUgraphInstantiate_flags(0))?
        .ok_or("micro-step capture produced no graph")?;

    for mb in micro_batches {
        h_batch.as_mut_slice()?.copy_from_slice(&mb[..rows * stride]); // EXPECT: missing_sync
        micro_step.launch()?;
    }

    stream.memcpy_dtoh(&d_grad, &mut h_grad)?;
    stream.synchronize()?;
    let scale = 1.0 / micro_batches.len().max(1) as f32;
    Ok(h_grad.as_slice()?.iter().map(|g| g * scale).collect())
}

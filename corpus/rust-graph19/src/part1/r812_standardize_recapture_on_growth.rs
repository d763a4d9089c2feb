//! Feature standardization for variable-size batches. The graph copies a pinned
//! staging buffer up, standardizes it and copies the result back. When a batch
//! outgrows the buffers, the old graph is dropped, the buffers are reallocated
//! larger and the graph is captured again: only the new graph, which names the
//! new buffers, is launched after that.

use std::sync::Arc;

use cudarc::driver::{
    sys, CudaContext, CudaFunction, CudaGraph, CudaSlice, CudaStream, LaunchConfig,
    PinnedHostSlice, PushKernelArg,
};
use cudarc::nvrtc::compile_ptx;

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

const STANDARDIZE_KERNEL: &str = r#"
extern "C" __global__ void standardize(const float *x, float *y, const float *mean,
                                       const float *inv_std, int rows, int features) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= rows * features) return;
    int f = i % features;
    y[i] = (x[i] - mean[f]) * inv_std[f];
}
"#;

fn capture_standardize(
    stream: &Arc<CudaStream>,
    kernel: &CudaFunction,
    h_in: &PinnedHostSlice<f32>,
    d_in: &mut CudaSlice<f32>,
    d_out: &mut CudaSlice<f32>,
    h_out: &mut PinnedHostSlice<f32>,
    d_mean: &CudaSlice<f32>,
    d_inv_std: &CudaSlice<f32>,
    rows: usize,
    features: usize,
) -> Result<CudaGraph> {
    let (r, f) = (rows as i32, features as i32);
    stream.begin_capture(sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_GLOBAL)?;
    stream.memcpy_htod(h_in, d_in)?;
    let mut norm = stream.launch_builder(kernel);
    norm.arg(&*d_in).arg(&mut *d_out).arg(d_mean).arg(d_inv_std).arg(&r).arg(&f);
    unsafe { norm.launch(LaunchConfig::for_num_elems((rows * features) as u32)) }?;
    stream.memcpy_dtoh(&*d_out, h_out)?;
    Ok(stream
        .end_capture(sys::CUgraphInstantiate_flags(0))?
        .ok_or("standardize capture produced no graph")?)
}

pub fn standardize_batches(
    batches: &[Vec<f32>],
    mean: &[f32],
    inv_std: &[f32],
    features: usize,
    initial_rows: usize,
) -> Result<Vec<Vec<f32>>> {
    let ctx = CudaContext::new(0)?;
    unsafe { ctx.disable_event_tracking() };
    let stream = ctx.new_stream()?;
    let module = ctx.load_module(compile_ptx(STANDARDIZE_KERNEL)?)?;
    let kernel = module.load_function("standardize")?;

    let mut d_mean = stream.alloc_zeros::<f32>(features)?;
    let mut d_inv_std = stream.alloc_zeros::<f32>(features)?;
    {
        let mut h_mean = unsafe { ctx.alloc_pinned::<f32>(features)? };
        let mut h_inv_std = unsafe { ctx.alloc_pinned::<f32>(features)? };
        h_mean.as_mut_slice()?.copy_from_slice(&mean[..features]);
        h_inv_std.as_mut_slice()?.copy_from_slice(&inv_std[..features]);
        stream.memcpy_htod(&h_mean, &mut d_mean)?;
        stream.memcpy_htod(&h_inv_std, &mut d_inv_std)?;
        stream.synchronize()?;
    }

    let mut rows = initial_rows.max(1);
    let mut h_in = unsafe { ctx.alloc_pinned::<f32>(rows * features)? };
    let mut h_out = unsafe { ctx.alloc_pinned_with_flags::<f32>(rows * features, 0)? };
    let mut d_in = stream.alloc_zeros::<f32>(rows * features)?;
    let mut d_out = stream.alloc_zeros::<f32>(rows * features)?;
    let mut graph = capture_standardize(
        &stream, &kernel, &h_in, &mut d_in, &mut d_out, &mut h_out, &d_mean, &d_inv_std, rows,
        features,
    )?;

    let mut results = Vec::with_capacity(batches.len());
    for batch in batches {
        let need = batch.len() / features;
        if need > rows {
            // Nothing is in flight (each batch is waited for below); retire the
            // graph with the buffers it names, then capture over the new ones.
            drop(graph);
            rows = need.next_power_of_two();
            h_in = unsafe { ctx.alloc_pinned::<f32>(rows * features)? };
            h_out = unsafe { ctx.alloc_pinned_with_flags::<f32>(rows * features, 0)? };
            d_in = stream.alloc_zeros::<f32>(rows * features)?;
            d_out = stream.alloc_zeros::<f32>(rows * features)?;
            graph = capture_standardize(
                &stream, &kernel, &h_in, &mut d_in, &mut d_out, &mut h_out, &d_mean, &d_inv_std,
                rows, features,
            )?;
        }
        let staged = h_in.as_mut_slice()?;
        staged.fill(0.0);
        staged[..need * features].copy_from_slice(&batch[..need * features]);
        graph.launch()?;
        stream.synchronize()?;
        results.push(h_out.as_slice()?[..need * features].to_vec());
    }
    Ok(results)
}

//! Anomaly scoring of sensor windows from a captured graph. After each launch
//! the host records an event on the launch stream, prepares the next windows
//! (host-only work that touches no buffer of the graph) while the graph runs,
//! and waits on the event before reading the scores and refilling the staging
//! buffer.

use cudarc::driver::{sys, CudaContext, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

const SCORE_KERNEL: &str = r#"
extern "C" __global__ void window_max_z(const float *x, float *score, int windows, int len) {
    int w = blockIdx.x * blockDim.x + threadIdx.x;
    if (w >= windows) return;
    const float *v = x + (size_t)w * len;
    float mean = 0.0f;
    for (int i = 0; i < len; ++i) mean += v[i];
    mean /= len;
    float var = 0.0f;
    for (int i = 0; i < len; ++i) var += (v[i] - mean) * (v[i] - mean);
    float inv_sd = rsqrtf(var / len + 1e-12f);
    float worst = 0.0f;
    for (int i = 0; i < len; ++i) worst = fmaxf(worst, fabsf(v[i] - mean) * inv_sd);
    score[w] = worst;
}
"#;

/// Cuts a raw sensor trace into `windows` windows of `len` samples, detrended.
fn cut_windows(trace: &[f32], windows: usize, len: usize) -> Vec<f32> {
    let mut out = vec![0.0f32; windows * len];
    for (w, chunk) in trace.chunks(len).take(windows).enumerate() {
        let first = chunk.first().copied().unwrap_or(0.0);
        let last = chunk.last().copied().unwrap_or(0.0);
        let slope = (last - first) / (chunk.len().max(2) - 1) as f32;
        for (i, v) in chunk.iter().enumerate() {
            out[w * len + i] = v - (first + slope * i as f32);
        }
    }
    out
}

pub fn score_traces(traces: &[Vec<f32>], windows: usize, len: usize, threshold: f32) -> Result<Vec<Vec<usize>>> {
    let ctx = CudaContext::new(0)?;
    unsafe { ctx.disable_event_tracking() };
    let stream = ctx.new_stream()?;
    let module = ctx.load_module(compile_ptx(SCORE_KERNEL)?)?;
    let score = module.load_function("window_max_z")?;

    let mut h_windows = unsafe { ctx.alloc_pinned::<f32>(windows * len)? };
    let mut h_scores = unsafe { ctx.alloc_pinned_with_flags::<f32>(windows, 0)? };
    let mut d_windows = stream.alloc_zeros::<f32>(windows * len)?;
    let mut d_scores = stream.alloc_zeros::<f32>(windows)?;
    let (nw, l) = (windows as i32, len as i32);

    stream.begin_capture(sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_GLOBAL)?;
    stream.memcpy_htod(&h_windows, &mut d_windows)?;
    let mut k = stream.launch_builder(&score);
    k.arg(&d_windows).arg(&mut d_scores).arg(&nw).arg(&l);
    unsafe { k.launch(LaunchConfig::for_num_elems(windows as u32)) }?;
    stream.memcpy_dtoh(&d_scores, &mut h_scores)?;
    let scorer = stream
        .end_capture(sys::CUgraphInstantiate_flags(0))?
        .ok_or("scoring capture produced no graph")?;
    let done = ctx.new_event(Some(sys::CUevent_flags::CU_EVENT_BLOCKING_SYNC))?;

    let mut flagged = Vec::with_capacity(traces.len());
    let Some(first) = traces.first() else {
        return Ok(flagged);
    };
    let mut next = cut_windows(first, windows, len);
    for t in 0..traces.len() {
        h_windows.as_mut_slice()?.copy_from_slice(&next);
        scorer.launch()?;
        done.record(&stream)?;
        // Overlap: detrend the next trace while the graph scores this one.
        if let Some(trace) = traces.get(t + 1) {
            next = cut_windows(trace, windows, len);
        }
        done.synchronize()?;
        let hits = h_scores
            .as_slice()?
            .iter()
            .enumerate()
            .filter(|(_, s)| **s > threshold)
            .map(|(w, _)| w)
            .collect();
        flagged.push(hits);
    }
    Ok(flagged)
}

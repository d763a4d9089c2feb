//! Per-channel running statistics over telemetry frames. A frame is staged in a
//! pinned buffer and a replayed CUDA graph uploads it and folds it into device-side
//! sums. Before the host refills the staging buffer it waits on an event recorded
//! right after the previous replay, so the refill never overlaps the upload that
//! replay performs.

use std::error::Error;
use std::sync::Arc;

use cudarc::driver::{
    sys, CudaContext, CudaEvent, CudaStream, LaunchConfig, PinnedHostSlice, PushKernelArg,
};
use cudarc::nvrtc::compile_ptx;

const STATS_SRC: &str = r#"
// frame is laid out [sample][channel]
extern "C" __global__ void fold_frame(const float* __restrict__ frame,
                                      int samples, int channels,
                                      double* __restrict__ sum,
                                      double* __restrict__ sumsq) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= channels) return;
    double s = 0.0, q = 0.0;
    for (int k = 0; k < samples; ++k) {
        double v = frame[k * channels + c];
        s += v;
        q += v * v;
    }
    sum[c] += s;
    sumsq[c] += q;
}
"#;

pub struct ChannelStats {
    pub mean: Vec<f64>,
    pub var: Vec<f64>,
}

/// Folds every frame (`samples * channels` values each) into per-channel mean and
/// variance.
pub fn channel_stats(
    frames: &[Vec<f32>],
    samples: usize,
    channels: usize,
) -> Result<ChannelStats, Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;
    unsafe { ctx.disable_event_tracking() };
    let stream = ctx.new_stream()?;
    let module = ctx.load_module(compile_ptx(STATS_SRC)?)?;
    let fold = module.load_function("fold_frame")?;

    let frame_len = samples * channels;
    let mut staging: PinnedHostSlice<f32> =
        unsafe { ctx.alloc_pinned_with_flags::<f32>(frame_len, 0) }?;
    let mut d_frame = stream.alloc_zeros::<f32>(frame_len)?;
    let mut d_sum = stream.alloc_zeros::<f64>(channels)?;
    let mut d_sumsq = stream.alloc_zeros::<f64>(channels)?;

    let (s_i, c_i) = (samples as i32, channels as i32);
    stream.begin_capture(sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_GLOBAL)?;
    stream.memcpy_htod(&staging, &mut d_frame)?;
    let mut b = stream.launch_builder(&fold);
    b.arg(&d_frame).arg(&s_i).arg(&c_i).arg(&mut d_sum).arg(&mut d_sumsq);
    unsafe { b.launch(LaunchConfig::for_num_elems(channels as u32)) }?;
    let graph = stream
        .end_capture(sys::CUgraphInstantiate_flags(0))?
        .ok_or("empty capture")?;

    // Never recorded before the first frame: waiting on it then returns at once.
    let upload_done: CudaEvent =
        ctx.new_event(Some(sys::CUevent_flags::CU_EVENT_BLOCKING_SYNC))?;
    for frame in frames {
        assert_eq!(frame.len(), frame_len);
        upload_done.synchronize()?;
        staging.as_mut_slice()?.copy_from_slice(frame);
        graph.launch()?;
        upload_done.record(&stream)?;
    }
    stream.synchronize()?;

    let mut h_sum = unsafe { ctx.alloc_pinned_with_flags::<f64>(channels, 0) }?;
    let mut h_sumsq = unsafe { ctx.alloc_pinned_with_flags::<f64>(channels, 0) }?;
    stream.memcpy_dtoh(&d_sum, &mut h_sum)?;
    stream.memcpy_dtoh(&d_sumsq, &mut h_sumsq)?;
    stream.synchronize()?;

    let count = (frames.len() * samples).max(1) as f64;
    let sum = h_sum.as_slice()?;
    let sumsq = h_sumsq.as_slice()?;
    let mean: Vec<f64> = sum.iter().map(|s| s / count).collect();
    let var = sumsq
        .iter()
        .zip(&mean)
        .map(|(q, m)| q / count - m * m)
        .collect();
    Ok(ChannelStats { mean, var })
}

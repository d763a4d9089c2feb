//! Builds the FIR filter graph. The taps are designed into a local array and
//! copied into the graph with a captured host-to-device copy, so the graph
//! keeps reading `taps` at every launch, after this function has returned.

use std::sync::Arc;

use cudarc::driver::{
    sys, CudaFunction, CudaGraph, CudaSlice, CudaStream, LaunchConfig, PushKernelArg,
};

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

pub(super) const TAPS: usize = 8;

/// Windowed-sinc low-pass taps for a normalized cutoff in (0, 0.5).
fn design_lowpass(cutoff: f32) -> [f32; TAPS] {
    let mut taps = [0.0f32; TAPS];
    let mid = (TAPS - 1) as f32 / 2.0;
    let mut sum = 0.0;
    for (k, t) in taps.iter_mut().enumerate() {
        let m = k as f32 - mid;
        let sinc = if m == 0.0 {
            2.0 * cutoff
        } else {
            (2.0 * std::f32::consts::PI * cutoff * m).sin() / (std::f32::consts::PI * m)
        };
        let hamming = 0.54 - 0.46 * (2.0 * std::f32::consts::PI * k as f32 / (TAPS - 1) as f32).cos();
        *t = sinc * hamming;
        sum += *t;
    }
    for t in taps.iter_mut() {
        *t /= sum;
    }
    taps
}

pub(super) fn capture_fir(
    stream: &Arc<CudaStream>,
    fir: &CudaFunction,
    d_taps: &mut CudaSlice<f32>,
    d_signal: &CudaSlice<f32>,
    d_filtered: &mut CudaSlice<f32>,
    samples: usize,
    cutoff: f32,
) -> Result<CudaGraph> {
    let taps = design_lowpass(cutoff);
    let (n, t) = (samples as i32, TAPS as i32);
    stream.begin_capture(sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_GLOBAL)?;
    stream.memcpy_htod(&taps, d_taps)?;
    let mut filter = stream.launch_builder(fir);
    filter.arg(d_signal).arg(&*d_taps).arg(d_filtered).arg(&n).arg(&t);
    unsafe { filter.launch(LaunchConfig::for_num_elems(samples as u32)) }?;
    let graph = stream
        .end_capture(sys::CUgraphInstantiate_flags(0))?
        .ok_or("FIR capture produced no graph")?;
    Ok(graph)
}

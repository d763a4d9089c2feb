//! A captured FIR filter that owns the pinned buffer its taps upload reads, so
//! the host memory behind the captured copy lives as long as the graph.

use std::sync::Arc;

use cudarc::driver::{
    sys, CudaContext, CudaFunction, CudaGraph, CudaSlice, CudaStream, LaunchConfig,
    PinnedHostSlice, PushKernelArg,
};

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

pub(super) struct FilterGraph {
    pub(super) graph: CudaGraph,
    /// Read by the graph's first node at every launch.
    taps: PinnedHostSlice<f32>,
}

pub(super) fn highpass_taps(ntaps: usize, cutoff: f32) -> Vec<f32> {
    let mid = (ntaps - 1) as f32 / 2.0;
    let mut taps: Vec<f32> = (0..ntaps)
        .map(|k| {
            let m = k as f32 - mid;
            let lp = if m == 0.0 {
                2.0 * cutoff
            } else {
                (2.0 * std::f32::consts::PI * cutoff * m).sin() / (std::f32::consts::PI * m)
            };
            let w = 0.5 - 0.5 * (2.0 * std::f32::consts::PI * k as f32 / (ntaps - 1) as f32).cos();
            -lp * w
        })
        .collect();
    taps[ntaps / 2] += 1.0;
    taps
}

impl FilterGraph {
    pub(super) fn capture(
        ctx: &Arc<CudaContext>,
        stream: &Arc<CudaStream>,
        fir: &CudaFunction,
        coefficients: &[f32],
        d_taps: &mut CudaSlice<f32>,
        d_signal: &CudaSlice<f32>,
        d_filtered: &mut CudaSlice<f32>,
        samples: usize,
    ) -> Result<Self> {
        let mut taps = unsafe { ctx.alloc_pinned::<f32>(coefficients.len())? };
        taps.as_mut_slice()?.copy_from_slice(coefficients);
        let (n, t) = (samples as i32, coefficients.len() as i32);
        stream.begin_capture(sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_GLOBAL)?;
        stream.memcpy_htod(&taps, d_taps)?;
        let mut filter = stream.launch_builder(fir);
        filter.arg(d_signal).arg(&*d_taps).arg(d_filtered).arg(&n).arg(&t);
        unsafe { filter.launch(LaunchConfig::for_num_elems(samples as u32)) }?;
        let graph = stream
            .end_capture(sys::CUgraphInstantiate_flags(0))?
            .ok_or("FIR capture produced no graph")?;
        Ok(Self { graph, taps })
    }
}

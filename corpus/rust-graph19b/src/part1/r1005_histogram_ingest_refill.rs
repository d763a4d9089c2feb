//! Streaming histogram of detector samples. Each batch is staged in one pinned
//! buffer; a CUDA graph (upload of the staging buffer + binning kernel) is replayed
//! per batch and accumulates into a device-resident histogram that is read once at
//! the end.

use std::error::Error;
use std::sync::Arc;

use cudarc::driver::{
    sys, CudaContext, CudaFunction, CudaSlice, CudaStream, LaunchConfig, PinnedHostSlice,
    PushKernelArg,
};
use cudarc::nvrtc::compile_ptx;

const HIST_SRC: &str = r#"
extern "C" __global__ void bin_samples(const float* __restrict__ x, int n,
                                       unsigned int* __restrict__ hist,
                                       float lo, float inv_width, int bins) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int b = (int)((x[i] - lo) * inv_width);
    if (b < 0) b = 0;
    if (b >= bins) b = bins - 1;
    atomicAdd(&hist[b], 1u);
}
"#;

pub struct HistogramConfig {
    pub lo: f32,
    pub hi: f32,
    pub bins: usize,
    pub batch: usize,
}

/// Bins every sample of `batches` (each exactly `cfg.batch` long) into `cfg.bins`
/// equal-width bins between `cfg.lo` and `cfg.hi`.
pub fn stream_histogram(
    cfg: &HistogramConfig,
    batches: &[Vec<f32>],
) -> Result<Vec<u32>, Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;
    unsafe { ctx.disable_event_tracking() };
    let stream = ctx.new_stream()?;
    let module = ctx.load_module(compile_ptx(HIST_SRC)?)?;
    let bin_fn = module.load_function("bin_samples")?;

    let mut staging: PinnedHostSlice<f32> =
        unsafe { ctx.alloc_pinned_with_flags::<f32>(cfg.batch, 0) }?;
    let mut d_batch = stream.alloc_zeros::<f32>(cfg.batch)?;
    let mut d_hist = stream.alloc_zeros::<u32>(cfg.bins)?;

    let n_i = cfg.batch as i32;
    let bins_i = cfg.bins as i32;
    let inv_width = cfg.bins as f32 / (cfg.hi - cfg.lo);
    let launch_cfg = LaunchConfig::for_num_elems(cfg.batch as u32);

    stream.begin_capture(sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_GLOBAL)?;
    stream.memcpy_htod(&staging, &mut d_batch)?;
    let mut b = stream.launch_builder(&bin_fn);
    b.arg(&d_batch)
        .arg(&n_i)
        .arg(&mut d_hist)
        .arg(&cfg.lo)
        .arg(&inv_width)
        .arg(&bins_i);
    unsafe { b.launch(launch_cfg) }?;
    let graph = stream
        .end_capture(sys::CUgraphInstantiate_flags(0))?
        .ok_or("empty capture")?;

    for batch in batches {
        assert_eq!(batch.len(), cfg.batch);
        staging.as_mut_slice()?.copy_from_slice(batch); // EXPECT: missing_sync
        graph.launch()?;
    }
    stream.synchronize()?;

    let mut h_hist = unsafe { ctx.alloc_pinned_with_flags::<u32>(cfg.bins, 0) }?;
    stream.memcpy_dtoh(&d_hist, &mut h_hist)?;
    stream.synchronize()?;
    Ok(h_hist.as_slice()?.to_vec())
}

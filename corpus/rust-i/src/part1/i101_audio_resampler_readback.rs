//! case: polyphase audio resampler on cudarc's default stream only (no second stream, so cudarc records no events); the resampled block is read through PinnedHostSlice::as_slice right after the async memcpy_dtoh, before the stream is synchronized
//! expect: missing_sync=1

use std::sync::Arc;

use cudarc::driver::{
    CudaContext, CudaFunction, CudaSlice, CudaStream, DriverError, LaunchConfig, PinnedHostSlice, PushKernelArg,
};
use cudarc::nvrtc::compile_ptx;

const RESAMPLE_SRC: &str = r#"
extern "C" __global__ void resample_linear(const float* in, float* out, float ratio, unsigned n_in, unsigned n_out) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n_out) return;
    float pos = i * ratio;
    unsigned j = (unsigned)pos;
    float frac = pos - (float)j;
    float a = in[j < n_in ? j : n_in - 1];
    float b = in[j + 1 < n_in ? j + 1 : n_in - 1];
    out[i] = a + (b - a) * frac;
}
"#;

pub struct ResampleStats {
    pub peak: f32,
    pub rms: f32,
}

pub struct Resampler {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    kernel: CudaFunction,
    ratio: f32,
    dev_in: CudaSlice<f32>,
    dev_out: CudaSlice<f32>,
    host_out: PinnedHostSlice<f32>,
}

impl Resampler {
    pub fn new(ctx: Arc<CudaContext>, from_hz: u32, to_hz: u32, block: usize) -> Result<Self, Box<dyn std::error::Error>> {
        let ptx = compile_ptx(RESAMPLE_SRC)?;
        let module = ctx.load_module(ptx)?;
        let kernel = module.load_function("resample_linear")?;
        // The whole engine lives on the context's default stream.
        let stream = ctx.default_stream();
        let ratio = from_hz as f32 / to_hz as f32;
        let out_len = (block as f32 / ratio).ceil() as usize;
        let dev_in = stream.alloc_zeros::<f32>(block)?;
        let dev_out = stream.alloc_zeros::<f32>(out_len)?;
        // Not write-combined: the host reads it.
        let host_out = unsafe { ctx.alloc_pinned_with_flags::<f32>(out_len, 0)? };
        Ok(Self { ctx, stream, kernel, ratio, dev_in, dev_out, host_out })
    }

    pub fn input_block(&self) -> Result<PinnedHostSlice<f32>, DriverError> {
        unsafe { self.ctx.alloc_pinned_with_flags::<f32>(self.dev_in.len(), 0) }
    }

    /// Resamples one block; `input` must be pinned so the upload overlaps.
    pub fn process(&mut self, input: &PinnedHostSlice<f32>) -> Result<ResampleStats, DriverError> {
        self.stream.memcpy_htod(input, &mut self.dev_in)?;
        let n_in = self.dev_in.len() as u32;
        let n_out = self.dev_out.len() as u32;
        let mut launch = self.stream.launch_builder(&self.kernel);
        launch.arg(&self.dev_in).arg(&mut self.dev_out).arg(&self.ratio).arg(&n_in).arg(&n_out);
        unsafe { launch.launch(LaunchConfig::for_num_elems(n_out)) }?;
        self.stream.memcpy_dtoh(&self.dev_out, &mut self.host_out)?;

        // as_slice "waits for scheduled work", but with a single stream cudarc never recorded
        // the event it waits on.
        let out = self.host_out.as_slice()?; // EXPECT: missing_sync
        let stats = summarize(out);
        // Let the caller refill `input` for the next block.
        self.stream.synchronize()?;
        Ok(stats)
    }
}

fn summarize(samples: &[f32]) -> ResampleStats {
    let peak = samples.iter().fold(0.0f32, |m, s| m.max(s.abs()));
    let energy: f32 = samples.iter().map(|s| s * s).sum();
    let rms = if samples.is_empty() { 0.0 } else { (energy / samples.len() as f32).sqrt() };
    ResampleStats { peak, rms }
}

pub fn resample_file(pcm: &[f32], from_hz: u32, to_hz: u32) -> Result<Vec<ResampleStats>, Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    let block = 48_000;
    let mut rs = Resampler::new(ctx, from_hz, to_hz, block)?;
    let mut input = rs.input_block()?;
    let mut stats = Vec::new();
    for chunk in pcm.chunks_exact(block) {
        input.as_mut_slice()?.copy_from_slice(chunk);
        stats.push(rs.process(&input)?);
    }
    Ok(stats)
}

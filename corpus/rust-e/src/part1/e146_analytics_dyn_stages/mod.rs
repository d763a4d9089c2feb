//! case: frame-analytics pipeline of `Box<dyn Stage>`s (one module per stage) sharing one stream; every stage enqueues its work, then every stage collects its results, and only after that is the stream synchronized, so the histogram stage reads its pinned bins while their download may still be running
//! expect: missing_sync=1

mod histogram;
mod threshold;

use cuda_lint_runtime::{Context, DeviceBuffer, Result, Stream};

pub use histogram::HistogramStage;
pub use threshold::ThresholdStage;

pub(crate) const ANALYTICS_SRC: &str = r#"
extern "C" __global__ void luma_histogram(const float* luma, int n, unsigned int* bins) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&bins[min((int)(luma[i] * 64.0f), 63)], 1u);
}
extern "C" __global__ void threshold_mask(const float* luma, int n, float level, unsigned char* mask) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) mask[i] = luma[i] > level;
}
"#;

#[derive(Default, Debug)]
pub struct Report {
    pub lines: Vec<String>,
}

pub trait Stage {
    fn enqueue(&mut self, stream: &Stream, luma: &DeviceBuffer<f32>) -> Result<()>;
    fn collect(&mut self, report: &mut Report) -> Result<()>;
}

pub fn build(ctx: &Context, pixels: usize) -> Result<Vec<Box<dyn Stage>>> {
    let module = ctx.load_cuda(ANALYTICS_SRC)?;
    Ok(vec![
        Box::new(HistogramStage::new(ctx, &module)?),
        Box::new(ThresholdStage::new(ctx, &module, pixels, 0.8)?),
    ])
}

pub fn analyze(stream: &Stream, luma: &DeviceBuffer<f32>, stages: &mut [Box<dyn Stage>]) -> Result<Report> {
    for stage in stages.iter_mut() {
        stage.enqueue(stream, luma)?;
    }
    let mut report = Report::default();
    for stage in stages.iter_mut() {
        stage.collect(&mut report)?;
    }
    stream.synchronize()?;
    Ok(report)
}

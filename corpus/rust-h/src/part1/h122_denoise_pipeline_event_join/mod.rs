//! case: video denoising pipeline of trait-object stages on a compute stream with a separate readback stream and cudarc event tracking disabled; the readback stream waits on an event recorded after the last stage before copying, and the host reads after synchronizing the readback stream (which transitively covers the upload it will overwrite next frame)
//! expect: none

pub mod pipeline;
pub mod stages;

use cudarc::driver::CudaContext;

pub use pipeline::DenoisePipeline;
pub use stages::{BilateralStage, Stage, TemporalStage};

pub fn denoise_clip(frames: &[Vec<f32>], width: usize, height: usize) -> Result<Vec<f32>, Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    let stages: Vec<Box<dyn Stage>> = vec![
        Box::new(BilateralStage::new(&ctx, 2.0, 0.1)?),
        Box::new(TemporalStage::new(&ctx, width * height, 0.8)?),
    ];
    let mut pipeline = DenoisePipeline::new(&ctx, width, height, stages)?;
    frames.iter().map(|f| pipeline.process(f)).collect()
}

//! Binary mask for the encoder's region-of-interest map; stays on the device.

use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, Module, Result, Stream};

use super::{Report, Stage};

pub struct ThresholdStage {
    kernel: Kernel,
    mask: DeviceBuffer<u8>,
    level: f32,
}

impl ThresholdStage {
    pub fn new(ctx: &Context, module: &Module, pixels: usize, level: f32) -> Result<Self> {
        Ok(ThresholdStage { kernel: module.function("threshold_mask")?, mask: ctx.alloc(pixels)?, level })
    }

    pub fn mask(&self) -> &DeviceBuffer<u8> {
        &self.mask
    }
}

impl Stage for ThresholdStage {
    fn enqueue(&mut self, stream: &Stream, luma: &DeviceBuffer<f32>) -> Result<()> {
        let n = luma.len() as i32;
        unsafe { stream.launch(&self.kernel, LaunchConfig::for_num_elems(n as u32), &[luma, &n, &self.level, &self.mask]) }
    }

    fn collect(&mut self, report: &mut Report) -> Result<()> {
        // only the setting is reported; the mask is consumed on the device
        report.lines.push(format!("mask threshold {}", self.level));
        Ok(())
    }
}

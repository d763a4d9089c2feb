//! Luma histogram: 64 bins computed on the device, downloaded into pinned memory.

use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, Module, PinnedBuffer, Result, Stream};

use super::{Report, Stage};

pub struct HistogramStage {
    kernel: Kernel,
    bins_dev: DeviceBuffer<u32>,
    bins_host: PinnedBuffer<u32>,
}

impl HistogramStage {
    pub fn new(ctx: &Context, module: &Module) -> Result<Self> {
        Ok(HistogramStage { kernel: module.function("luma_histogram")?, bins_dev: ctx.alloc(64)?, bins_host: ctx.alloc_pinned(64)? })
    }
}

impl Stage for HistogramStage {
    fn enqueue(&mut self, stream: &Stream, luma: &DeviceBuffer<f32>) -> Result<()> {
        let n = luma.len() as i32;
        stream.memset_d32_async(&mut self.bins_dev, 0)?;
        unsafe {
            stream.launch(&self.kernel, LaunchConfig::for_num_elems(n as u32), &[luma, &n, &self.bins_dev])?;
            stream.copy_dtoh_async(&mut self.bins_host, &self.bins_dev)?;
        }
        Ok(())
    }

    fn collect(&mut self, report: &mut Report) -> Result<()> {
        let total: u64 = self.bins_host.iter().map(|&b| b as u64).sum(); // EXPECT: missing_sync
        let dark = self.bins_host[..8].iter().map(|&b| b as u64).sum::<u64>();
        report.lines.push(format!("dark fraction {:.3}", dark as f64 / total.max(1) as f64));
        Ok(())
    }
}

use super::stages::{Stage, Views, build_stages};
use cuda_lint_runtime::{Context, PhysicalAllocation, Result, VirtualRange};

pub struct LayerPipeline {
    ctx: Context,
    stages: Vec<Box<dyn Stage>>,
    views: Views,
}

impl LayerPipeline {
    pub fn new(n: usize) -> Result<LayerPipeline> {
        let ctx = Context::new(0)?;
        let gran = ctx.vmm_granularity()?;
        let bytes = (n * 4).div_ceil(gran) * gran;
        let phys = PhysicalAllocation::new(&ctx, bytes)?;
        let primary = VirtualRange::reserve(&ctx, bytes)?.map(&phys, 0)?;
        let shadow = VirtualRange::reserve(&ctx, bytes)?.map(&phys, 0)?;
        let out = ctx.alloc_zeroed::<f32>(n)?;
        let stages = build_stages(&ctx, 0.0, 1.0)?;
        Ok(LayerPipeline { views: Views { primary, shadow, out, n: n as u32 }, stages, ctx })
    }

    pub fn forward(&self) -> Result<Vec<&'static str>> {
        let stream = self.ctx.new_stream()?;
        let mut ran = Vec::new();
        for stage in self.stages.iter().filter(|s| !s.name().is_empty()) {
            unsafe { stage.enqueue(&stream, &self.views)? };
            ran.push(stage.name());
        }
        stream.synchronize()?;
        Ok(ran)
    }
}

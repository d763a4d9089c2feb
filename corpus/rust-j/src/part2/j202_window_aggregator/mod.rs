//! case: stream-processing window operator stages per-window sums in write-combined pinned memory (runtime layer, `write_combined: true`) and builds its report from it right after `copy_dtoh_async`, before the stream is synchronized in `tick` (stale and an uncached read)
//! expect: missing_sync=1, write_combined_host_read=1

pub mod operator;
pub mod report;

use cuda_lint_runtime::{Context, Result};

pub use operator::WindowAggregator;
pub use report::WindowReport;

/// One scheduler tick: fold the batch, emit the report, then make sure the GPU is idle before
/// the next batch is staged.
pub fn tick(agg: &mut WindowAggregator, batch: &[f32]) -> Result<WindowReport> {
    agg.stage(batch)?;
    let report = agg.flush()?;
    agg.stream().synchronize()?;
    Ok(report)
}

pub fn run(ordinal: usize, batches: &[Vec<f32>]) -> Result<Vec<WindowReport>> {
    let ctx = Context::new(ordinal)?;
    let mut agg = WindowAggregator::new(&ctx, 64, 1 << 16)?;
    batches.iter().map(|b| tick(&mut agg, b)).collect()
}

//! case: ocean model that maps one physical allocation twice (cuda-lint-runtime VMM): the producer stream's advection kernel writes the sea-surface field through one mapping while the consumer stream's diagnostics kernel reads it through the other, with no event between the two streams
//! expect: unfenced_vmm_alias=1

pub mod buffers;
pub mod schedule;

use cuda_lint_runtime::{Context, PinnedBuffer, Result};

pub use buffers::AliasedField;
pub use schedule::DualStreamScheduler;

pub fn run_ocean(steps: usize, cells: usize) -> Result<Vec<f32>> {
    let ctx = Context::new(0)?;
    let field = AliasedField::new(&ctx, cells)?;
    let mut sched = DualStreamScheduler::new(&ctx, field)?;
    let mut stats: PinnedBuffer<f32> = ctx.alloc_pinned(2)?;
    let mut history = Vec::with_capacity(steps);
    for _ in 0..steps {
        sched.step(&mut stats)?;
        history.push(stats[0]);
    }
    Ok(history)
}

//! case: generic `Stage` trait for an image-denoising pipeline on the runtime layer; each stage's `submit` enqueues upload, kernel and readback into pinned memory and records an event, and the generic driver `run_stage` always calls `wait` (Event::synchronize) before touching `output()` (near-miss for missing_sync: the wait is behind a trait method)
//! expect: none

mod stage;
mod bilateral;

pub use bilateral::BilateralStage;
pub use stage::{run_stage, Stage};

use cuda_lint_runtime::Result;

/// Runs the stages in order, feeding each one's output to the next.
pub fn denoise<S: Stage>(stages: &mut [S], image: &[f32]) -> Result<Vec<f32>> {
    let mut current = image.to_vec();
    for s in stages.iter_mut() {
        current = run_stage(s, &current)?;
    }
    Ok(current)
}

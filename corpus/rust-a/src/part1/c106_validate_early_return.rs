//! case: a solver step validates its readback in a helper on the `check` path before the stream is synchronized; the sync only comes after, and `?` may return early
//! expect: missing_sync=1
use std::error::Error;
use std::fmt;

use cuda_lint_runtime::{DeviceBuffer, PinnedBuffer, Stream};

#[derive(Debug)]
pub struct NotFinite(pub usize);

impl fmt::Display for NotFinite {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "residual {} is not finite", self.0)
    }
}
impl Error for NotFinite {}

fn validate(residuals: &[f32]) -> Result<(), NotFinite> {
    match residuals.iter().position(|r| !r.is_finite()) { // EXPECT: missing_sync
        Some(i) => Err(NotFinite(i)),
        None => Ok(()),
    }
}

pub struct StepOptions {
    pub check: bool,
    pub tolerance: f32,
}

pub fn step(
    stream: &Stream,
    residuals_dev: &DeviceBuffer<f32>,
    residuals: &mut PinnedBuffer<f32>,
    opts: &StepOptions,
) -> Result<bool, Box<dyn Error>> {
    // SAFETY: `residuals` is pinned and outlives the copy.
    unsafe { stream.copy_dtoh_async(residuals, residuals_dev)? };
    if opts.check {
        validate(residuals)?;
    }
    stream.synchronize()?;
    let worst = residuals.iter().fold(0.0f32, |m, r| m.max(r.abs()));
    Ok(worst < opts.tolerance)
}

//! case: real-time audio effects chain on the runtime layer: gain, biquad and limiter stages are Box<dyn Effect> objects that enqueue kernels on one stream (the biquad swaps its output into the main buffer); the block goes in and out through one PinnedBuffer, read only after the stream is synchronized
//! expect: none

mod chain;
mod stages;

pub use chain::FxChain;
pub use stages::{Buffers, Effect};

use cuda_lint_runtime::{Context, Result};

/// RBJ low-pass biquad coefficients, normalized by a0.
pub fn lowpass(fs: f32, f0: f32, q: f32) -> [f32; 5] {
    let w0 = 2.0 * std::f32::consts::PI * f0 / fs;
    let alpha = w0.sin() / (2.0 * q);
    let cos = w0.cos();
    let a0 = 1.0 + alpha;
    [(1.0 - cos) / 2.0 / a0, (1.0 - cos) / a0, (1.0 - cos) / 2.0 / a0, -2.0 * cos / a0, (1.0 - alpha) / a0]
}

pub fn master(blocks: &mut [Vec<f32>], channels: u32) -> Result<usize> {
    let ctx = Context::new(0)?;
    let frames = blocks.first().map_or(0, |b| b.len() as u32 / channels);
    let mut chain = FxChain::new(&ctx, frames, channels, 1.4, lowpass(48_000.0, 12_000.0, 0.707))?;
    let mut stages = 0;
    for b in blocks.iter_mut() {
        stages = chain.process(b)?.len();
    }
    Ok(stages)
}

//! case: decode-time KV cache that stages each step's K/V rows in pinned buffers; the staging buffers are rewritten every step, but `append` first waits for the previous step through the `wait_idle` helper
//! expect: none

mod cache;
mod kernels;

use cuda_lint_runtime::{Context, Result};

pub use cache::KvCache;

/// A toy projection standing in for the attention block's K/V projection of one token.
fn project(token: u32, width: usize, salt: f32) -> Vec<f32> {
    (0..width)
        .map(|i| ((token as usize * 31 + i) % 97) as f32 * 0.01 + salt)
        .collect()
}

pub fn run_decode(prompt: &[u32], max_new: usize) -> Result<Vec<f32>> {
    let ctx = Context::new(0)?;
    let (n_heads, head_dim) = (8usize, 64usize);
    let mut cache = KvCache::new(&ctx, prompt.len() + max_new, n_heads, head_dim)?;

    let width = n_heads * head_dim;
    for &tok in prompt {
        let k = project(tok, width, 0.0);
        let v = project(tok, width, 0.5);
        cache.append(&k, &v)?;
    }

    let mut last = prompt.last().copied().unwrap_or(0);
    for step in 0..max_new {
        // greedy stand-in for the sampler: the next token is derived from the step
        last = last.wrapping_mul(1_103_515_245).wrapping_add(step as u32) % 32_000;
        let k = project(last, width, 0.0);
        let v = project(last, width, 0.5);
        cache.append(&k, &v)?;
    }

    cache.last_key_row()
}

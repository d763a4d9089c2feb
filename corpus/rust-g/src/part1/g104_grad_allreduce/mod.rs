//! case: data-parallel training step with one worker thread per shard (scoped threads, channels): each worker uploads its shard straight from its `Vec` (pageable), runs the backward kernel, copies the gradients into pinned memory and computes the local gradient norm from that buffer before synchronizing its stream; the host-side all-reduce then averages the buffers it receives
//! expect: missing_sync=1, pageable_async_copy=1

mod reduce;
mod worker;

use std::sync::mpsc;

use cuda_lint_runtime::{Context, Kernel};

pub type Result<T> = std::result::Result<T, Box<dyn std::error::Error + Send + Sync>>;

pub const BACKWARD_SRC: &str = r#"
// d/dw of 0.5 * (w . x - y)^2, accumulated over the rows of the shard (one thread per weight).
extern "C" __global__ void linreg_backward(const float* x, const float* w, float* grad,
                                           unsigned n_rows, unsigned n_params) {
    unsigned j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= n_params) return;
    float g = 0.0f;
    for (unsigned r = 0; r < n_rows; ++r) {
        const float* row = x + (size_t)r * (n_params + 1);
        float pred = 0.0f;
        for (unsigned k = 0; k < n_params; ++k) pred += row[k] * w[k];
        g += (pred - row[n_params]) * row[j];
    }
    grad[j] = g / n_rows;
}
"#;

pub struct Kernels {
    pub backward: Kernel,
}

pub fn train_step(shards: &[Vec<f32>], weights: &[f32]) -> Result<Vec<f32>> {
    let ctx = Context::new(0)?;
    let module = ctx.load_cuda(BACKWARD_SRC)?;
    let kernels = Kernels { backward: module.function("linreg_backward")? };
    let (tx, rx) = mpsc::channel();

    std::thread::scope(|s| -> Result<()> {
        let handles: Vec<_> = shards
            .iter()
            .enumerate()
            .map(|(rank, shard)| {
                let tx = tx.clone();
                let (ctx, kernels) = (&ctx, &kernels);
                s.spawn(move || worker::run(rank, ctx, kernels, shard, weights, tx))
            })
            .collect();
        drop(tx);
        for h in handles {
            h.join().map_err(|_| "worker panicked")??;
        }
        Ok(())
    })?;

    let grads = reduce::all_reduce_mean(rx, weights.len());
    Ok(weights.iter().zip(&grads).map(|(w, g)| w - 0.01 * g).collect())
}

use std::sync::mpsc::Receiver;

use cuda_lint_runtime::PinnedBuffer;

/// Host-side all-reduce: averages the gradient buffers of every rank (each already
/// synchronized by its worker before it was sent).
pub fn all_reduce_mean(rx: Receiver<(usize, PinnedBuffer<f32>)>, n_params: usize) -> Vec<f32> {
    let mut sum = vec![0.0f32; n_params];
    let mut ranks = 0usize;
    for (_rank, grads) in rx {
        sum.iter_mut().zip(grads.iter()).for_each(|(s, g)| *s += g);
        ranks += 1;
    }
    if ranks > 0 {
        sum.iter_mut().for_each(|s| *s /= ranks as f32);
    }
    sum
}

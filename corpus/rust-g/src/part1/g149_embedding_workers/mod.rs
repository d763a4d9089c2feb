//! case: embedding service with a pool of worker threads sharing one context and module through a `OnceLock`; each worker owns its stream and pinned buffers, pulls jobs from a shared channel, and calls `Worker::drain` (a stream synchronize) before reading its pinned output and sending the result back
//! expect: none

mod pool;
mod worker;

pub use pool::{EmbeddingPool, Job};

pub const ENCODE_SRC: &str = r#"
extern "C" __global__ void encode_mean(const unsigned* ids, unsigned n, const float* table, float* out, unsigned dim) {
    unsigned c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= dim) return;
    float s = 0.0f;
    for (unsigned t = 0; t < n; ++t) s += table[(size_t)ids[t] * dim + c];
    out[c] = n ? s / n : 0.0f;
}
"#;

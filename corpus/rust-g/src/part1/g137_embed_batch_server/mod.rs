//! case: embedding server thread fed by an mpsc channel: requests are batched into a pinned staging buffer, uploaded, mean-pooled by a kernel and copied back into pinned memory; `Batch::finish` synchronizes the stream before the per-request slices are cut out of the output and sent back on each request's reply channel
//! expect: none

mod batch;
mod server;

pub use server::{spawn_server, Request};

pub const POOL_SRC: &str = r#"
extern "C" __global__ void embed_mean_pool(const unsigned* ids, const unsigned* offsets, const float* table,
                                           float* out, unsigned dim) {
    unsigned r = blockIdx.x;
    unsigned c = threadIdx.x + blockIdx.y * blockDim.x;
    if (c >= dim) return;
    unsigned start = offsets[r], end = offsets[r + 1];
    float s = 0.0f;
    for (unsigned t = start; t < end; ++t) s += table[(size_t)ids[t] * dim + c];
    out[(size_t)r * dim + c] = end > start ? s / (end - start) : 0.0f;
}
"#;

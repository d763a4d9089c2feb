//! CUDA sources of the KV cache.

pub const KV_APPEND_SRC: &str = r#"
extern "C" __global__ void kv_append(float* k_cache, float* v_cache,
                                     const float* k_new, const float* v_new,
                                     unsigned pos, unsigned width) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < width) {
        k_cache[(size_t)pos * width + i] = k_new[i];
        v_cache[(size_t)pos * width + i] = v_new[i];
    }
}

extern "C" __global__ void kv_read_row(const float* k_cache, float* out,
                                       unsigned pos, unsigned width) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < width) out[i] = k_cache[(size_t)pos * width + i];
}
"#;

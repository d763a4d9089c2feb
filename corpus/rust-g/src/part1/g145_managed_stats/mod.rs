//! case: serving statistics kept in `cudaMallocManaged` memory (global attach): the token histogram is reset by the host right after the step's logits kernel (which does not use it) was launched, and the sampling config struct is rewritten by the host while the previous sampling kernel, which reads other buffers, may still run; both are read by later kernels only after a synchronize
//! expect: managed_concurrent_access=2

mod config;
mod hist;

use std::ffi::c_void;

pub type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

pub const STATS_SRC: &str = r#"
struct SamplingConfig { float temperature; float top_p; unsigned top_k; unsigned seed; };

extern "C" __global__ void logits_bias(float* logits, const float* bias, unsigned vocab) {
    unsigned v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v < vocab) logits[v] += bias[v];
}

extern "C" __global__ void count_tokens(const int* tokens, unsigned n, unsigned* hist, unsigned bins) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&hist[(unsigned)tokens[i] % bins], 1u);
}

extern "C" __global__ void sample_greedy(const float* logits, unsigned vocab, int* out) {
    if (threadIdx.x != 0 || blockIdx.x != 0) return;
    int best = 0;
    for (unsigned v = 1; v < vocab; ++v) if (logits[v] > logits[best]) best = v;
    out[0] = best;
}

extern "C" __global__ void sample_with_config(const float* logits, const SamplingConfig* cfg, unsigned vocab, int* out) {
    if (threadIdx.x != 0 || blockIdx.x != 0) return;
    int best = 0;
    float t = fmaxf(cfg->temperature, 1e-4f);
    for (unsigned v = 1; v < vocab && v < cfg->top_k; ++v) if (logits[v] / t > logits[best] / t) best = v;
    out[0] = best;
}
"#;

pub fn managed_alloc(bytes: usize) -> Result<*mut c_void> {
    use cudarc::runtime::sys;
    let mut p: *mut c_void = std::ptr::null_mut();
    unsafe { sys::cudaMallocManaged(&mut p, bytes, sys::cudaMemAttachGlobal).result()? };
    Ok(p)
}

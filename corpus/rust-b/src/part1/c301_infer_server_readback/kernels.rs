//! CUDA source of the server's kernels, compiled at start-up with NVRTC.

/// `softmax_rows(x, y, n)`: reads `x[0..n]`, writes `y[0..n]`.
pub const SOFTMAX_SRC: &str = r#"
extern "C" __global__ void softmax_rows(const float* x, float* y, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float m = -1e30f;
    for (unsigned j = 0; j < n; ++j) m = fmaxf(m, x[j]);
    float s = 0.0f;
    for (unsigned j = 0; j < n; ++j) s += __expf(x[j] - m);
    y[i] = __expf(x[i] - m) / s;
}
"#;

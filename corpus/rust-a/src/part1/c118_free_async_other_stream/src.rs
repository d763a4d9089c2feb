//! Kernel source of the scratch-buffer example.

pub const FILL_SRC: &str = r#"
extern "C" __global__ void fill(float* x, float v, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = v;
}
"#;

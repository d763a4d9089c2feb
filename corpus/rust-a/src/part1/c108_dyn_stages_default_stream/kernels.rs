//! CUDA C sources of the pipeline stages.

pub const STAGES_SRC: &str = r#"
extern "C" __global__ void scale(float* x, float a, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = x[i] * a;
}
extern "C" __global__ void offset(float* x, float b, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = x[i] + b;
}
"#;

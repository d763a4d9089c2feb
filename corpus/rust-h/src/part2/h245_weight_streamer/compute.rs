use cuda_lint_runtime::{Context, Kernel, Result};

const MATVEC_SRC: &str = r#"
extern "C" __global__ void matvec(const float* w, const float* x, float* y, unsigned rows, unsigned cols) {
    unsigned r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    float acc = 0.0f;
    for (unsigned c = 0; c < cols; ++c) acc += w[r * cols + c] * x[c];
    y[r] = acc;
}
"#;

pub fn kernel(ctx: &Context) -> Result<Kernel> {
    ctx.load_cuda(MATVEC_SRC)?.function("matvec")
}

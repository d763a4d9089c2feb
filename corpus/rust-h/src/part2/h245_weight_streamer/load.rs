use cuda_lint_runtime::{Context, Kernel, Result};

const DEQUANT_SRC: &str = r#"
extern "C" __global__ void dequantize_i8(const signed char* q, float* w, float scale, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) w[i] = q[i] * scale;
}
"#;

pub fn kernel(ctx: &Context) -> Result<Kernel> {
    ctx.load_cuda(DEQUANT_SRC)?.function("dequantize_i8")
}

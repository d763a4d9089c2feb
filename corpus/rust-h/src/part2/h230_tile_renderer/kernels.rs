use cuda_lint_runtime::{Context, Kernel, Result};

const SHADE_SRC: &str = r#"
extern "C" __global__ void shade(unsigned* fb, unsigned w, unsigned h, unsigned t) {
    unsigned x = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    unsigned r = (x + t) & 0xff, g = (y + 2 * t) & 0xff, b = ((x ^ y) + t) & 0xff;
    fb[y * w + x] = 0xff000000u | (r << 16) | (g << 8) | b;
}
"#;

pub fn load_shader(ctx: &Context) -> Result<Kernel> {
    ctx.load_cuda(SHADE_SRC)?.function("shade")
}

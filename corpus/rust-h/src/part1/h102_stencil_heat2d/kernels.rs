pub const HEAT_STEP_SRC: &str = r#"
extern "C" __global__ void heat_step(const float* cur, float* next, int nx, int ny, float coeff) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x <= 0 || y <= 0 || x >= nx - 1 || y >= ny - 1) return;
    int i = y * nx + x;
    float lap = cur[i - 1] + cur[i + 1] + cur[i - nx] + cur[i + nx] - 4.0f * cur[i];
    next[i] = cur[i] + coeff * lap;
}
"#;

pub const BLOCK: (u32, u32, u32) = (16, 16, 1);

//! Colour conversion and 8x8 DCT/quantization kernels.

pub const ENCODER_SRC: &str = r#"
extern "C" __global__ void rgb_to_luma(const unsigned char* rgb, float* luma, unsigned width, unsigned height) {
    unsigned x = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height) return;
    const unsigned char* p = rgb + 3 * (y * width + x);
    luma[y * width + x] = 0.299f * p[0] + 0.587f * p[1] + 0.114f * p[2] - 128.f;
}

// One 8x8 block per thread block of 8x8 threads: 2-D DCT-II, then uniform quantization.
extern "C" __global__ void dct8x8_quant(const float* luma, short* coeffs, unsigned width, float qstep) {
    __shared__ float tile[8][8];
    __shared__ float rows[8][8];
    unsigned bx = blockIdx.x * 8, by = blockIdx.y * 8;
    unsigned u = threadIdx.x, v = threadIdx.y;
    tile[v][u] = luma[(by + v) * width + bx + u];
    __syncthreads();
    const float PI = 3.14159265f;
    float s = 0.f;
    for (int x = 0; x < 8; ++x) s += tile[v][x] * cosf((2 * x + 1) * u * PI / 16.f);
    rows[v][u] = s * (u == 0 ? 0.35355339f : 0.5f);
    __syncthreads();
    s = 0.f;
    for (int y = 0; y < 8; ++y) s += rows[y][u] * cosf((2 * y + 1) * v * PI / 16.f);
    s *= (v == 0 ? 0.35355339f : 0.5f);
    unsigned block = blockIdx.y * gridDim.x + blockIdx.x;
    coeffs[block * 64 + v * 8 + u] = (short)rintf(s / qstep);
}
"#;

/// Zig-zag order of an 8x8 block.
pub const ZIGZAG: [usize; 64] = [
    0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5, 12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13, 6, 7, 14, 21,
    28, 35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51, 58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61,
    54, 47, 55, 62, 63,
];

// Separable Gaussian blur kernels and their launcher (compiled as its own translation unit).
#include <cuda_runtime.h>

namespace {
constexpr int kRadius = 4;
__constant__ float c_weights[2 * kRadius + 1] = {0.0162f, 0.0540f, 0.1216f, 0.1945f, 0.2270f,
                                                 0.1945f, 0.1216f, 0.0540f, 0.0162f};

__global__ void blur_rows(const float* __restrict__ in, float* __restrict__ out, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    float acc = 0.0f;
    for (int k = -kRadius; k <= kRadius; ++k) acc += c_weights[k + kRadius] * in[y * w + min(max(x + k, 0), w - 1)];
    out[y * w + x] = acc;
}

__global__ void blur_cols(const float* __restrict__ in, float* __restrict__ out, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    float acc = 0.0f;
    for (int k = -kRadius; k <= kRadius; ++k) acc += c_weights[k + kRadius] * in[min(max(y + k, 0), h - 1) * w + x];
    out[y * w + x] = acc;
}
}  // namespace

// `tmp` and `out` are device buffers of w * h floats.
void launch_gaussian_blur(const float* in, float* tmp, float* out, int w, int h, cudaStream_t stream) {
    dim3 block(32, 8), grid((w + 31) / 32, (h + 7) / 8);
    blur_rows<<<grid, block, 0, stream>>>(in, tmp, w, h);
    blur_cols<<<grid, block, 0, stream>>>(tmp, out, w, h);
}

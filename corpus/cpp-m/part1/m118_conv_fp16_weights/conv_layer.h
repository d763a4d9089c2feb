#pragma once
// Shapes and constant-memory parameters of the 3x3 convolution block (NCHW, fp16 weights).
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(x)                                                              \
    do {                                                                           \
        cudaError_t e_ = (x);                                                      \
        if (e_ != cudaSuccess) {                                                   \
            std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,                \
                         cudaGetErrorString(e_));                                  \
            std::exit(EXIT_FAILURE);                                               \
        }                                                                          \
    } while (0)

constexpr int kInC = 64;
constexpr int kOutC = 128;
constexpr int kKsize = 3;
constexpr int kHeight = 56;
constexpr int kWidth = 56;
constexpr int kWeightCount = kOutC * kInC * kKsize * kKsize;
constexpr int kInputCount = kInC * kHeight * kWidth;
constexpr int kOutputCount = kOutC * kHeight * kWidth;

// Folded batch-norm: y = conv * scale[c] + shift[c]
__constant__ float c_bn_scale[kOutC];
__constant__ float c_bn_shift[kOutC];

__global__ void conv3x3_bn_relu(const float* __restrict__ in, const __half* __restrict__ w,
                                float* __restrict__ out) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int oc = blockIdx.z;
    if (x >= kWidth || y >= kHeight) return;
    float acc = 0.0f;
    for (int ic = 0; ic < kInC; ++ic)
        for (int ky = 0; ky < kKsize; ++ky)
            for (int kx = 0; kx < kKsize; ++kx) {
                int yy = y + ky - 1, xx = x + kx - 1;
                if (yy < 0 || xx < 0 || yy >= kHeight || xx >= kWidth) continue;
                float wv = __half2float(w[((oc * kInC + ic) * kKsize + ky) * kKsize + kx]);
                acc += wv * in[(ic * kHeight + yy) * kWidth + xx];
            }
    float v = acc * c_bn_scale[oc] + c_bn_shift[oc];
    out[(oc * kHeight + y) * kWidth + x] = v > 0.0f ? v : 0.0f;
}

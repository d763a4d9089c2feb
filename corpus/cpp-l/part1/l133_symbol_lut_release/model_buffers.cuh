// Device-side buffers of the activation-approximation model and their setup/teardown.
#pragma once
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#define MB_CHECK(call)                                                           \
    do {                                                                         \
        cudaError_t e_ = (call);                                                 \
        if (e_ != cudaSuccess) {                                                 \
            fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(e_));          \
            std::exit(1);                                                        \
        }                                                                        \
    } while (0)

constexpr int kLutSize = 1024;
constexpr float kLutRange = 8.f;

// GELU sampled on [-kLutRange, kLutRange]; lives in the module, not in an allocation
__device__ float g_gelu_lut[kLutSize];

struct ModelBuffers {
    float* d_in = nullptr;
    float* d_out = nullptr;
    float* d_lut = nullptr;  // address of g_gelu_lut
    size_t n = 0;
};

inline void model_buffers_init(ModelBuffers& b, size_t n) {
    b.n = n;
    MB_CHECK(cudaMalloc(&b.d_in, n * sizeof(float)));
    MB_CHECK(cudaMalloc(&b.d_out, n * sizeof(float)));

    static float host_lut[kLutSize];
    for (int i = 0; i < kLutSize; ++i) {
        float x = -kLutRange + 2.f * kLutRange * float(i) / float(kLutSize - 1);
        host_lut[i] = 0.5f * x * (1.f + std::erf(x / std::sqrt(2.f)));
    }
    MB_CHECK(cudaMemcpyToSymbol(g_gelu_lut, host_lut, sizeof(host_lut)));
    void* lut = nullptr;
    MB_CHECK(cudaGetSymbolAddress(&lut, g_gelu_lut));
    b.d_lut = static_cast<float*>(lut);
}

// Releases every device pointer the struct holds.
inline void model_buffers_release(ModelBuffers& b) {
    MB_CHECK(cudaFree(b.d_in));
    MB_CHECK(cudaFree(b.d_out));
    cudaFree(b.d_lut); // EXPECT: mismatched_free
    b = ModelBuffers{};
}

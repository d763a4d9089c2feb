#pragma once
#include <cuda_runtime.h>
#include <cfloat>
#include <cstdio>
#include <vector>

#define CUDA_CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); std::exit(1); } } while (0)

struct Tensor {
    float* data = nullptr;   // device memory
    int c = 0, h = 0, w = 0;
    size_t numel() const { return (size_t)c * h * w; }
};

inline Tensor make_tensor(int c, int h, int w) {
    Tensor t;
    t.c = c; t.h = h; t.w = w;
    CUDA_CHECK(cudaMalloc(&t.data, t.numel() * sizeof(float)));
    return t;
}

inline void free_tensor(Tensor& t) {
    CUDA_CHECK(cudaFree(t.data));
    t.data = nullptr;
}

inline std::vector<float> to_host(const Tensor& t) {
    std::vector<float> out(t.numel());
    CUDA_CHECK(cudaMemcpy(out.data(), t.data, out.size() * sizeof(float), cudaMemcpyDeviceToHost));
    return out;
}

// Debug helper: min / max / mean of one channel.
inline void print_channel_stats(const Tensor& t, int ch) {
    const float* plane = t.data + (size_t)ch * t.h * t.w;
    float lo = FLT_MAX, hi = -FLT_MAX;
    double sum = 0.0;
    for (int i = 0; i < t.h * t.w; ++i) {
        lo = fminf(lo, plane[i]);
        hi = fmaxf(hi, plane[i]);
        sum += plane[i];
    }
    printf("channel %d: min %.4f max %.4f mean %.4f\n", ch, lo, hi, sum / (t.h * t.w));
}

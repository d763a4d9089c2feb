#pragma once
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CUDA_CHECK(expr)                                                      \
    do {                                                                      \
        cudaError_t e_ = (expr);                                              \
        if (e_ != cudaSuccess) {                                              \
            std::fprintf(stderr, "CUDA error %s at %s:%d\n",                  \
                         cudaGetErrorString(e_), __FILE__, __LINE__);         \
            std::abort();                                                     \
        }                                                                     \
    } while (0)

struct Slot {
    float* h_in;
    float* h_out;
    float* d_in;
    float* d_out;
    cudaStream_t stream;
    cudaEvent_t done;
};

inline void slot_init(Slot& s, size_t n) {
    CUDA_CHECK(cudaMallocHost(&s.h_in, n * sizeof(float)));
    CUDA_CHECK(cudaMallocHost(&s.h_out, n * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&s.d_in, n * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&s.d_out, n * sizeof(float)));
    CUDA_CHECK(cudaStreamCreateWithFlags(&s.stream, cudaStreamNonBlocking));
    CUDA_CHECK(cudaEventCreateWithFlags(&s.done, cudaEventDisableTiming));
}

inline void slot_destroy(Slot& s) {
    CUDA_CHECK(cudaStreamSynchronize(s.stream));
    cudaEventDestroy(s.done);
    cudaStreamDestroy(s.stream);
    cudaFree(s.d_out);
    cudaFree(s.d_in);
    cudaFreeHost(s.h_out);
    cudaFreeHost(s.h_in);
}

inline void fill_batch(float* dst, size_t n, int batch) {
    for (size_t i = 0; i < n; ++i) dst[i] = static_cast<float>((batch * 31 + i) % 1024);
}

inline double sum_batch(const float* src, size_t n) {
    double acc = 0.0;
    for (size_t i = 0; i < n; ++i) acc += src[i];
    return acc;
}

#pragma once
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); std::exit(1); } } while (0)

// One stage of a double-buffered host<->device pipeline.
struct Slot {
    float* h_in = nullptr;
    float* h_out = nullptr;
    float* d_in = nullptr;
    float* d_out = nullptr;
    cudaStream_t stream = nullptr;
    cudaEvent_t done = nullptr;
    int chunk = -1;          // chunk whose results are in flight, -1 if none
};

inline void make_slot(Slot& s, size_t n) {
    CUDA_CHECK(cudaMallocHost(&s.h_in, n * sizeof(float)));
    CUDA_CHECK(cudaMallocHost(&s.h_out, n * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&s.d_in, n * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&s.d_out, n * sizeof(float)));
    CUDA_CHECK(cudaStreamCreateWithFlags(&s.stream, cudaStreamNonBlocking));
    CUDA_CHECK(cudaEventCreateWithFlags(&s.done, cudaEventDisableTiming));
}

// Blocks until the slot's previous chunk has finished its round trip.
inline void wait_slot(Slot& s) {
    CUDA_CHECK(cudaEventSynchronize(s.done));
}

inline void destroy_slot(Slot& s) {
    CUDA_CHECK(cudaStreamSynchronize(s.stream));
    cudaEventDestroy(s.done);
    cudaStreamDestroy(s.stream);
    cudaFree(s.d_out);
    cudaFree(s.d_in);
    cudaFreeHost(s.h_out);
    cudaFreeHost(s.h_in);
}

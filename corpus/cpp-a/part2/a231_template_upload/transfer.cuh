#pragma once
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(x)                                                          \
    do {                                                                       \
        cudaError_t e_ = (x);                                                  \
        if (e_ != cudaSuccess) {                                               \
            std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_));       \
            std::exit(1);                                                      \
        }                                                                      \
    } while (0)

namespace xfer {

// Uploads a host container's contents to device memory on `stream`.
template <typename T>
void upload_async(T* d_dst, const std::vector<T>& src, cudaStream_t stream) {
    CUDA_CHECK(cudaMemcpyAsync(d_dst, src.data(), src.size() * sizeof(T), cudaMemcpyHostToDevice, stream)); // EXPECT: pageable_async_copy
}

// Uploads from a page-locked host buffer.
template <typename T>
void upload_pinned_async(T* d_dst, const T* h_pinned, size_t count, cudaStream_t stream) {
    CUDA_CHECK(cudaMemcpyAsync(d_dst, h_pinned, count * sizeof(T), cudaMemcpyHostToDevice, stream));
}

template <typename T>
T* device_alloc(size_t count) {
    T* p = nullptr;
    CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&p), count * sizeof(T)));
    return p;
}

}  // namespace xfer

#pragma once
// Owning pointers for CUDA memory: the deleter matches the allocator.
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <memory>

#define CUDA_CHECK(x)                                                              \
    do {                                                                           \
        cudaError_t e_ = (x);                                                      \
        if (e_ != cudaSuccess) {                                                   \
            std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__,                 \
                         cudaGetErrorString(e_));                                  \
            std::exit(EXIT_FAILURE);                                               \
        }                                                                          \
    } while (0)

struct DeviceDeleter {
    void operator()(void* p) const noexcept { cudaFree(p); }
};

struct PinnedDeleter {
    void operator()(void* p) const noexcept { cudaFreeHost(p); }
};

template <typename T>
using device_unique_ptr = std::unique_ptr<T[], DeviceDeleter>;

template <typename T>
using pinned_unique_ptr = std::unique_ptr<T[], PinnedDeleter>;

template <typename T>
device_unique_ptr<T> make_device(size_t n) {
    T* p = nullptr;
    CUDA_CHECK(cudaMalloc(&p, n * sizeof(T)));
    return device_unique_ptr<T>(p);
}

template <typename T>
pinned_unique_ptr<T> make_pinned(size_t n) {
    T* p = nullptr;
    CUDA_CHECK(cudaMallocHost(&p, n * sizeof(T)));
    return pinned_unique_ptr<T>(p);
}

struct StreamDeleter {
    void operator()(CUstream_st* s) const noexcept { cudaStreamDestroy(s); }
};
using unique_stream = std::unique_ptr<CUstream_st, StreamDeleter>;

inline unique_stream make_stream() {
    cudaStream_t s = nullptr;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    return unique_stream(s);
}

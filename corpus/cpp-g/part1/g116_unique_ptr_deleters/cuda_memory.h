#pragma once
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <cuda_runtime.h>

#define CUDA_ASSERT(call)                                                  \
    do {                                                                   \
        cudaError_t e_ = (call);                                           \
        if (e_ != cudaSuccess) {                                           \
            std::fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(e_)); \
            std::abort();                                                  \
        }                                                                  \
    } while (0)

struct DeviceDeleter {
    void operator()(void* p) const noexcept { cudaFree(p); }
};
struct PinnedDeleter {
    void operator()(void* p) const noexcept { cudaFreeHost(p); }
};

template <typename T> using device_unique = std::unique_ptr<T[], DeviceDeleter>;
template <typename T> using pinned_unique = std::unique_ptr<T[], PinnedDeleter>;

template <typename T>
device_unique<T> make_device(std::size_t n) {
    void* p = nullptr;
    CUDA_ASSERT(cudaMalloc(&p, n * sizeof(T)));
    return device_unique<T>(static_cast<T*>(p));
}

template <typename T>
pinned_unique<T> make_pinned(std::size_t n) {
    void* p = nullptr;
    CUDA_ASSERT(cudaMallocHost(&p, n * sizeof(T)));
    return pinned_unique<T>(static_cast<T*>(p));
}

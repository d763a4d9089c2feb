#pragma once
#include <cuda_runtime.h>
#include <cstddef>
#include <memory>
#include <new>

namespace rt {

struct DeviceDeleter {
    void operator()(void* p) const noexcept { if (p) cudaFree(p); }
};

struct PinnedDeleter {
    void operator()(void* p) const noexcept { if (p) cudaFreeHost(p); }
};

template <typename T>
using device_unique_ptr = std::unique_ptr<T[], DeviceDeleter>;

template <typename T>
using pinned_unique_ptr = std::unique_ptr<T[], PinnedDeleter>;

template <typename T>
device_unique_ptr<T> make_device(size_t n) {
    void* p = nullptr;
    if (cudaMalloc(&p, n * sizeof(T)) != cudaSuccess) throw std::bad_alloc();
    return device_unique_ptr<T>(static_cast<T*>(p));
}

template <typename T>
T* alloc_pinned_raw(size_t n) {
    void* p = nullptr;
    if (cudaMallocHost(&p, n * sizeof(T)) != cudaSuccess) throw std::bad_alloc();
    return static_cast<T*>(p);
}

}  // namespace rt

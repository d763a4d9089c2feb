// RAII owners for the market-data engine's buffers: page-locked host memory and device memory.
#pragma once
#include <cuda_runtime.h>
#include <cstddef>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(call)                                                           \
    do {                                                                           \
        cudaError_t status_ = (call);                                              \
        if (status_ != cudaSuccess) {                                              \
            std::fprintf(stderr, "%s:%d %s -> %s\n", __FILE__, __LINE__, #call,    \
                         cudaGetErrorString(status_));                             \
            std::abort();                                                          \
        }                                                                          \
    } while (0)

template <typename T>
class PinnedBuffer {
public:
    explicit PinnedBuffer(size_t n) : n_(n) {
        CUDA_CHECK(cudaMallocHost(reinterpret_cast<void**>(&ptr_), n_ * sizeof(T)));
    }
    ~PinnedBuffer() { cudaFreeHost(ptr_); }
    PinnedBuffer(const PinnedBuffer&) = delete;
    PinnedBuffer& operator=(const PinnedBuffer&) = delete;

    T* data() { return ptr_; }
    const T* data() const { return ptr_; }
    T& operator[](size_t i) { return ptr_[i]; }
    const T& operator[](size_t i) const { return ptr_[i]; }
    size_t size() const { return n_; }
    size_t bytes() const { return n_ * sizeof(T); }

private:
    T* ptr_ = nullptr;
    size_t n_;
};

template <typename T>
class DeviceBuffer {
public:
    explicit DeviceBuffer(size_t n) : n_(n) { CUDA_CHECK(cudaMalloc(&ptr_, n_ * sizeof(T))); }
    ~DeviceBuffer() { cudaFree(ptr_); }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;

    T* get() const { return ptr_; }
    size_t size() const { return n_; }
    size_t bytes() const { return n_ * sizeof(T); }

private:
    T* ptr_ = nullptr;
    size_t n_;
};

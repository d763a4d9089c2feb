// Minimal RAII owners for CUDA resources: each frees with the function matching its allocator.
#pragma once
#include <cuda_runtime.h>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <utility>

template <typename T>
class DeviceBuffer {
public:
    explicit DeviceBuffer(size_t n) : n_(n) {
        if (cudaMalloc(&ptr_, n * sizeof(T)) != cudaSuccess) {
            fprintf(stderr, "cudaMalloc of %zu bytes failed\n", n * sizeof(T));
            std::abort();
        }
    }
    ~DeviceBuffer() { cudaFree(ptr_); }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
    DeviceBuffer(DeviceBuffer&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), n_(o.n_) {}
    T* get() const { return ptr_; }
    size_t size() const { return n_; }
    size_t bytes() const { return n_ * sizeof(T); }

private:
    T* ptr_ = nullptr;
    size_t n_ = 0;
};

template <typename T>
class PinnedBuffer {
public:
    explicit PinnedBuffer(size_t n) : n_(n) {
        if (cudaMallocHost(&ptr_, n * sizeof(T)) != cudaSuccess) {
            fprintf(stderr, "cudaMallocHost of %zu bytes failed\n", n * sizeof(T));
            std::abort();
        }
    }
    ~PinnedBuffer() { cudaFreeHost(ptr_); }
    PinnedBuffer(const PinnedBuffer&) = delete;
    PinnedBuffer& operator=(const PinnedBuffer&) = delete;
    T* get() const { return ptr_; }
    T& operator[](size_t i) const { return ptr_[i]; }
    size_t bytes() const { return n_ * sizeof(T); }

private:
    T* ptr_ = nullptr;
    size_t n_ = 0;
};

// Owns a stream; its destructor waits for the stream's work before destroying it. Declare it
// after the buffers the stream uses, so that it is destroyed (and waited for) first.
class StreamGuard {
public:
    StreamGuard() {
        if (cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking) != cudaSuccess) std::abort();
    }
    ~StreamGuard() {
        cudaStreamSynchronize(s_);
        cudaStreamDestroy(s_);
    }
    StreamGuard(const StreamGuard&) = delete;
    StreamGuard& operator=(const StreamGuard&) = delete;
    cudaStream_t get() const { return s_; }

private:
    cudaStream_t s_{};
};

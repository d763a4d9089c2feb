#pragma once
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <utility>

#define CUDA_TRY(expr) do { cudaError_t err_ = (expr); if (err_ != cudaSuccess) { \
    std::fprintf(stderr, "%s failed: %s\n", #expr, cudaGetErrorString(err_)); std::abort(); } } while (0)

template <typename T>
class DeviceBuffer {
public:
    explicit DeviceBuffer(size_t n) : n_(n) { CUDA_TRY(cudaMalloc(&ptr_, n * sizeof(T))); }
    ~DeviceBuffer() { if (ptr_) cudaFree(ptr_); }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
    T* get() const { return ptr_; }
    size_t size() const { return n_; }
    size_t bytes() const { return n_ * sizeof(T); }
private:
    T* ptr_ = nullptr;
    size_t n_;
};

template <typename T>
class PinnedBuffer {
public:
    explicit PinnedBuffer(size_t n) : n_(n) { CUDA_TRY(cudaMallocHost(&ptr_, n * sizeof(T))); }
    ~PinnedBuffer() { if (ptr_) cudaFreeHost(ptr_); }
    PinnedBuffer(const PinnedBuffer&) = delete;
    PinnedBuffer& operator=(const PinnedBuffer&) = delete;
    T* get() const { return ptr_; }
    T& operator[](size_t i) { return ptr_[i]; }
    size_t bytes() const { return n_ * sizeof(T); }
private:
    T* ptr_ = nullptr;
    size_t n_;
};

class Stream {
public:
    Stream() { CUDA_TRY(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking)); }
    ~Stream() { cudaStreamDestroy(s_); }
    operator cudaStream_t() const { return s_; }
    void sync() const { CUDA_TRY(cudaStreamSynchronize(s_)); }
private:
    cudaStream_t s_;
};

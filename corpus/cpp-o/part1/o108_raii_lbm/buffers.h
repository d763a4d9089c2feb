#pragma once
#include <cuda_runtime.h>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <utility>

inline void lbm_check(cudaError_t e, const char* what)
{
    if (e != cudaSuccess) { std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e)); std::exit(3); }
}

template <typename T>
class DeviceBuffer {
public:
    DeviceBuffer() = default;
    explicit DeviceBuffer(size_t n) : n_(n) { lbm_check(cudaMalloc(&p_, n * sizeof(T)), "cudaMalloc"); }
    ~DeviceBuffer() { reset(); }
    DeviceBuffer(DeviceBuffer&& o) noexcept : p_(std::exchange(o.p_, nullptr)), n_(o.n_) {}
    DeviceBuffer& operator=(DeviceBuffer&& o) noexcept { reset(); p_ = std::exchange(o.p_, nullptr); n_ = o.n_; return *this; }
    DeviceBuffer(const DeviceBuffer&) = delete;
    void reset() { if (p_) { cudaFree(p_); p_ = nullptr; } }
    T* data() const { return p_; }
    size_t size() const { return n_; }
    size_t bytes() const { return n_ * sizeof(T); }
private:
    T* p_ = nullptr;
    size_t n_ = 0;
};

template <typename T>
class PinnedBuffer {
public:
    explicit PinnedBuffer(size_t n) : n_(n) { lbm_check(cudaMallocHost(&p_, n * sizeof(T)), "cudaMallocHost"); }
    ~PinnedBuffer() { if (p_) cudaFreeHost(p_); }
    PinnedBuffer(const PinnedBuffer&) = delete;
    T& operator[](size_t i) { return p_[i]; }
    const T& operator[](size_t i) const { return p_[i]; }
    T* data() const { return p_; }
    size_t bytes() const { return n_ * sizeof(T); }
private:
    T* p_ = nullptr;
    size_t n_ = 0;
};

class Stream {
public:
    Stream() { lbm_check(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking), "stream"); }
    ~Stream() { cudaStreamDestroy(s_); }
    operator cudaStream_t() const { return s_; }
    void sync() const { lbm_check(cudaStreamSynchronize(s_), "cudaStreamSynchronize"); }
private:
    cudaStream_t s_{};
};

#pragma once
// Small RAII helpers shared by the signal-processing tools.
#include <cuda_runtime.h>
#include <cufft.h>
#include <cstdio>
#include <cstdlib>
#include <utility>

#define CUDA_CHECK(x)                                                              \
    do {                                                                           \
        cudaError_t e_ = (x);                                                      \
        if (e_ != cudaSuccess) {                                                   \
            std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,                \
                         cudaGetErrorString(e_));                                  \
            std::exit(EXIT_FAILURE);                                               \
        }                                                                          \
    } while (0)

#define CUFFT_CHECK(x)                                                             \
    do {                                                                           \
        cufftResult r_ = (x);                                                      \
        if (r_ != CUFFT_SUCCESS) {                                                 \
            std::fprintf(stderr, "%s:%d: cufft error %d\n", __FILE__, __LINE__,    \
                         int(r_));                                                 \
            std::exit(EXIT_FAILURE);                                               \
        }                                                                          \
    } while (0)

template <typename T>
class DeviceArray {
public:
    explicit DeviceArray(size_t n) : n_(n) { CUDA_CHECK(cudaMalloc(&p_, n * sizeof(T))); }
    ~DeviceArray() { if (p_) cudaFree(p_); }
    DeviceArray(DeviceArray&& o) noexcept : p_(std::exchange(o.p_, nullptr)), n_(o.n_) {}
    DeviceArray(const DeviceArray&) = delete;
    DeviceArray& operator=(const DeviceArray&) = delete;
    T* data() { return p_; }
    const T* data() const { return p_; }
    size_t size() const { return n_; }
    size_t bytes() const { return n_ * sizeof(T); }
private:
    T* p_ = nullptr;
    size_t n_ = 0;
};

template <typename T>
class PinnedArray {
public:
    explicit PinnedArray(size_t n) : n_(n) { CUDA_CHECK(cudaMallocHost(&p_, n * sizeof(T))); }
    ~PinnedArray() { if (p_) cudaFreeHost(p_); }
    PinnedArray(const PinnedArray&) = delete;
    PinnedArray& operator=(const PinnedArray&) = delete;
    T* data() { return p_; }
    T& operator[](size_t i) { return p_[i]; }
    size_t size() const { return n_; }
    size_t bytes() const { return n_ * sizeof(T); }
private:
    T* p_ = nullptr;
    size_t n_ = 0;
};

class Stream {
public:
    Stream() { CUDA_CHECK(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking)); }
    ~Stream() { cudaStreamDestroy(s_); }
    Stream(const Stream&) = delete;
    Stream& operator=(const Stream&) = delete;
    cudaStream_t get() const { return s_; }
    void sync() const { CUDA_CHECK(cudaStreamSynchronize(s_)); }
private:
    cudaStream_t s_ = nullptr;
};

#pragma once
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define GPU_CHECK(expr)                                                          \
    do {                                                                         \
        cudaError_t gpu_status_ = (expr);                                        \
        if (gpu_status_ != cudaSuccess) {                                        \
            std::fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__,   \
                         #expr, cudaGetErrorString(gpu_status_));                \
            std::exit(EXIT_FAILURE);                                             \
        }                                                                        \
    } while (0)

class ScopedStream {
public:
    ScopedStream() { GPU_CHECK(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking)); }
    ~ScopedStream() { cudaStreamSynchronize(s_); cudaStreamDestroy(s_); }
    ScopedStream(const ScopedStream&) = delete;
    ScopedStream& operator=(const ScopedStream&) = delete;
    operator cudaStream_t() const { return s_; }
    void synchronize() const { GPU_CHECK(cudaStreamSynchronize(s_)); }
private:
    cudaStream_t s_ = nullptr;
};

template <typename T>
class PinnedArray {
public:
    explicit PinnedArray(size_t n) : n_(n) { GPU_CHECK(cudaMallocHost(&p_, n * sizeof(T))); }
    ~PinnedArray() { cudaFreeHost(p_); }
    PinnedArray(const PinnedArray&) = delete;
    PinnedArray& operator=(const PinnedArray&) = delete;
    T* data() const { return p_; }
    T& operator[](size_t i) { return p_[i]; }
    size_t size() const { return n_; }
private:
    T* p_ = nullptr;
    size_t n_;
};

template <typename T>
class DeviceArray {
public:
    explicit DeviceArray(size_t n) : n_(n) { GPU_CHECK(cudaMalloc(&p_, n * sizeof(T))); }
    ~DeviceArray() { cudaFree(p_); }
    DeviceArray(const DeviceArray&) = delete;
    DeviceArray& operator=(const DeviceArray&) = delete;
    T* data() const { return p_; }
    size_t size() const { return n_; }
    void copy_from_async(const PinnedArray<T>& src, cudaStream_t s) {
        GPU_CHECK(cudaMemcpyAsync(p_, src.data(), n_ * sizeof(T), cudaMemcpyHostToDevice, s));
    }
    void copy_to_async(PinnedArray<T>& dst, cudaStream_t s) const {
        GPU_CHECK(cudaMemcpyAsync(dst.data(), p_, n_ * sizeof(T), cudaMemcpyDeviceToHost, s));
    }
    T at(size_t i) const {
        T v;
        GPU_CHECK(cudaMemcpy(&v, p_ + i, sizeof(T), cudaMemcpyDeviceToHost));
        return v;
    }
private:
    T* p_ = nullptr;
    size_t n_;
};

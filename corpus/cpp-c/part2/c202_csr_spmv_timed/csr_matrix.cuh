#pragma once
#include <cuda_runtime.h>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <utility>

#define CUDA_CHECK(call)                                                      \
    do {                                                                      \
        cudaError_t e_ = (call);                                              \
        if (e_ != cudaSuccess) {                                              \
            std::fprintf(stderr, "CUDA %s at %s:%d\n", cudaGetErrorString(e_), \
                         __FILE__, __LINE__);                                 \
            std::abort();                                                     \
        }                                                                     \
    } while (0)

// Page-locked host array: the source and destination of every async transfer.
template <typename T>
class PinnedArray {
public:
    explicit PinnedArray(size_t n) : n_(n) { CUDA_CHECK(cudaMallocHost(&p_, n * sizeof(T))); }
    ~PinnedArray() { if (p_) cudaFreeHost(p_); }
    PinnedArray(const PinnedArray&) = delete;
    PinnedArray& operator=(const PinnedArray&) = delete;
    PinnedArray(PinnedArray&& o) noexcept : p_(std::exchange(o.p_, nullptr)), n_(o.n_) {}

    T* data() { return p_; }
    const T* data() const { return p_; }
    T& operator[](size_t i) { return p_[i]; }
    const T& operator[](size_t i) const { return p_[i]; }
    size_t size() const { return n_; }
    size_t bytes() const { return n_ * sizeof(T); }

private:
    T* p_ = nullptr;
    size_t n_;
};

template <typename T>
class DeviceArray {
public:
    explicit DeviceArray(size_t n) : n_(n) { CUDA_CHECK(cudaMalloc(&p_, n * sizeof(T))); }
    ~DeviceArray() { if (p_) cudaFree(p_); }
    DeviceArray(const DeviceArray&) = delete;
    DeviceArray& operator=(const DeviceArray&) = delete;

    T* data() { return p_; }
    const T* data() const { return p_; }
    size_t size() const { return n_; }
    size_t bytes() const { return n_ * sizeof(T); }

    void upload_async(const PinnedArray<T>& src, cudaStream_t s) {
        CUDA_CHECK(cudaMemcpyAsync(p_, src.data(), src.bytes(), cudaMemcpyHostToDevice, s));
    }
    void download_async(PinnedArray<T>& dst, cudaStream_t s) const {
        CUDA_CHECK(cudaMemcpyAsync(dst.data(), p_, bytes(), cudaMemcpyDeviceToHost, s));
    }

private:
    T* p_ = nullptr;
    size_t n_;
};

struct CsrHost {
    PinnedArray<int> row_ptr, cols;
    PinnedArray<double> vals;
    int rows;
    CsrHost(int r, size_t nnz) : row_ptr(r + 1), cols(nnz), vals(nnz), rows(r) {}
};

struct CsrDevice {
    DeviceArray<int> row_ptr, cols;
    DeviceArray<double> vals;
    int rows;
    explicit CsrDevice(const CsrHost& h)
        : row_ptr(h.row_ptr.size()), cols(h.cols.size()), vals(h.vals.size()), rows(h.rows) {}
};

// Runs fn (which enqueues work on s) between two events and waits for the second one.
template <typename Fn>
float time_on_stream(cudaStream_t s, Fn&& fn) {
    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    CUDA_CHECK(cudaEventRecord(start, s));
    fn();
    CUDA_CHECK(cudaEventRecord(stop, s));
    CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0.f;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    return ms;
}

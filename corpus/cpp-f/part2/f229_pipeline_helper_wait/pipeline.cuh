#pragma once
#include <cuda_runtime.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <thread>
#include <utility>

#define PL_CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "pipeline: %s -> %s\n", #x, cudaGetErrorString(e_)); std::abort(); } } while (0)

namespace pl {

inline void drain(cudaStream_t s) { PL_CHECK(cudaStreamSynchronize(s)); }

// Busy-waits with a short sleep so a UI thread stays responsive.
inline void poll_until_idle(cudaStream_t s) {
    cudaError_t st;
    while ((st = cudaStreamQuery(s)) == cudaErrorNotReady)
        std::this_thread::sleep_for(std::chrono::microseconds(50));
    PL_CHECK(st);
}

class Stage {
public:
    using Callback = std::function<void(const float*, size_t)>;

    Stage(size_t n, Callback cb) : n_(n), on_done_(std::move(cb)) {
        PL_CHECK(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking));
        PL_CHECK(cudaMalloc(&d_buf_, n * sizeof(float)));
        PL_CHECK(cudaMallocHost(&h_buf_, n * sizeof(float)));
    }
    virtual ~Stage() {
        drain(s_);
        cudaFreeHost(h_buf_);
        cudaFree(d_buf_);
        cudaStreamDestroy(s_);
    }

    void run() {
        enqueue(d_buf_, n_, s_);
        PL_CHECK(cudaMemcpyAsync(h_buf_, d_buf_, n_ * sizeof(float), cudaMemcpyDeviceToHost, s_));
        drain(s_);
        on_done_(h_buf_, n_);
    }

protected:
    virtual void enqueue(float* d, size_t n, cudaStream_t s) = 0;
    cudaStream_t stream() const { return s_; }
    float* host() { return h_buf_; }
    float* device() { return d_buf_; }

private:
    size_t n_;
    Callback on_done_;
    cudaStream_t s_;
    float* d_buf_ = nullptr;
    float* h_buf_ = nullptr;
};

}  // namespace pl

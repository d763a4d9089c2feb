// A header the test includes: a class that owns a pinned buffer and a stream, and a helper.
#pragma once
#include <cuda_runtime.h>

class Staging {
  public:
    explicit Staging(size_t n) : n_(n) {
        cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking);
        cudaMallocHost(&host_, n * sizeof(float));
        cudaMalloc(&dev_, n * sizeof(float));
    }
    ~Staging() {
        cudaStreamSynchronize(stream_);
        cudaFreeHost(host_);
        cudaFree(dev_);
    }
    void download() { cudaMemcpyAsync(host_, dev_, n_ * sizeof(float), cudaMemcpyDeviceToHost, stream_); }
    void wait() { cudaStreamSynchronize(stream_); }
    float* host() { return host_; }
    float* dev() { return dev_; }

  private:
    size_t n_;
    cudaStream_t stream_;
    float* host_ = nullptr;
    float* dev_ = nullptr;
};

inline float* make_device(size_t n) {
    float* d;
    cudaMalloc(&d, n * sizeof(float));
    return d;
}

// cuda-lint: allow-file(device_memory_leak, uninitialized_device_read, unread_kernel_output)

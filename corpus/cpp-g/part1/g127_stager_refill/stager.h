#pragma once
#include <cstring>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CUDA_TRY(call)                                                        \
    do {                                                                      \
        cudaError_t e_ = (call);                                              \
        if (e_ != cudaSuccess) {                                              \
            std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__,            \
                         cudaGetErrorString(e_));                             \
            std::exit(1);                                                     \
        }                                                                     \
    } while (0)

// One pinned staging buffer feeding one device buffer on one stream.
class Stager {
public:
    explicit Stager(size_t n) : n_(n) {
        CUDA_TRY(cudaMallocHost(&h_stage_, n * sizeof(float)));
        CUDA_TRY(cudaMalloc(&d_buf_, n * sizeof(float)));
        CUDA_TRY(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    }
    ~Stager() {
        cudaStreamSynchronize(stream_);
        cudaStreamDestroy(stream_);
        cudaFree(d_buf_);
        cudaFreeHost(h_stage_);
    }

    // Copy a batch into the pinned buffer and start its upload.
    void upload(const float* src) {
        std::memcpy(h_stage_, src, n_ * sizeof(float));
        CUDA_TRY(cudaMemcpyAsync(d_buf_, h_stage_, n_ * sizeof(float),
                                 cudaMemcpyHostToDevice, stream_));
    }

    float* device() const { return d_buf_; }
    cudaStream_t stream() const { return stream_; }
    size_t size() const { return n_; }

private:
    size_t n_;
    float* h_stage_ = nullptr;
    float* d_buf_ = nullptr;
    cudaStream_t stream_ = nullptr;
};

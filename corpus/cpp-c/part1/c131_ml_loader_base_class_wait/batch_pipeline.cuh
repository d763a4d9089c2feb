// Data-loader building blocks: a stream-owning base class and a stager that normalizes a
// batch on the GPU and hands a pinned host copy back to the CPU-side consumers.
#pragma once
#include <cuda_runtime.h>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#define LOADER_CHECK(call)                                                           \
    do {                                                                             \
        cudaError_t e_ = (call);                                                     \
        if (e_ != cudaSuccess) {                                                     \
            std::fprintf(stderr, "loader: %s: %s\n", #call, cudaGetErrorString(e_)); \
            std::exit(1);                                                            \
        }                                                                            \
    } while (0)

class StreamResource {
public:
    StreamResource() { LOADER_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }
    virtual ~StreamResource() {
        cudaStreamSynchronize(stream_);
        cudaStreamDestroy(stream_);
    }
    StreamResource(const StreamResource&) = delete;
    StreamResource& operator=(const StreamResource&) = delete;

protected:
    void wait() const { LOADER_CHECK(cudaStreamSynchronize(stream_)); }
    cudaStream_t stream() const { return stream_; }

private:
    cudaStream_t stream_ = nullptr;
};

__global__ void normalize_u8(const uint8_t* in, float* out, size_t n, float mean, float inv_std) {
    size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    if (i < n) out[i] = (in[i] - mean) * inv_std;
}

class BatchStager : public StreamResource {
public:
    explicit BatchStager(size_t elems) : n_(elems) {
        LOADER_CHECK(cudaMallocHost(&h_raw_, n_));
        LOADER_CHECK(cudaMallocHost(&h_norm_, n_ * sizeof(float)));
        LOADER_CHECK(cudaMalloc(&d_raw_, n_));
        LOADER_CHECK(cudaMalloc(&d_norm_, n_ * sizeof(float)));
    }
    ~BatchStager() override {
        wait();
        cudaFree(d_norm_);
        cudaFree(d_raw_);
        cudaFreeHost(h_norm_);
        cudaFreeHost(h_raw_);
    }

    uint8_t* raw() { return h_raw_; }
    size_t size() const { return n_; }

    // Upload, normalize and download; the returned pointer is ready to read.
    const float* fetch(float mean, float stddev) {
        upload();
        normalize_u8<<<static_cast<unsigned>((n_ + 255) / 256), 256, 0, stream()>>>(d_raw_, d_norm_, n_, mean, 1.f / stddev);
        download();
        this->wait();
        return h_norm_;
    }

private:
    void upload() {
        LOADER_CHECK(cudaMemcpyAsync(d_raw_, h_raw_, n_, cudaMemcpyHostToDevice, stream()));
    }
    void download() {
        LOADER_CHECK(cudaMemcpyAsync(h_norm_, d_norm_, n_ * sizeof(float), cudaMemcpyDeviceToHost, stream()));
    }

    size_t n_;
    uint8_t* h_raw_ = nullptr;
    float* h_norm_ = nullptr;
    uint8_t* d_raw_ = nullptr;
    float* d_norm_ = nullptr;
};

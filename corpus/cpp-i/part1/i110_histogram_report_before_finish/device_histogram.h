#pragma once
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)

__global__ void bucketize(const float* vals, int n, float lo, float width, int nbins,
                          unsigned int* bins) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int b = (int)((vals[i] - lo) / width);
    b = b < 0 ? 0 : (b >= nbins ? nbins - 1 : b);
    atomicAdd(&bins[b], 1u);
}

class DeviceHistogram {
public:
    DeviceHistogram(int nbins, float lo, float hi) : nbins_(nbins), lo_(lo), width_((hi - lo) / nbins) {
        CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
        CUDA_CHECK(cudaMalloc(&d_bins_, nbins_ * sizeof(unsigned int)));
        CUDA_CHECK(cudaMallocHost(&h_bins_, nbins_ * sizeof(unsigned int)));
    }
    ~DeviceHistogram() {
        cudaStreamSynchronize(stream_);
        cudaFreeHost(h_bins_);
        cudaFree(d_bins_);
        cudaStreamDestroy(stream_);
    }

    cudaStream_t stream() const { return stream_; }

    void accumulate(const float* d_vals, int n) {
        CUDA_CHECK(cudaMemsetAsync(d_bins_, 0, nbins_ * sizeof(unsigned int), stream_));
        bucketize<<<(n + 255) / 256, 256, 0, stream_>>>(d_vals, n, lo_, width_, nbins_, d_bins_);
        CUDA_CHECK(cudaGetLastError());
    }

    void download() {
        CUDA_CHECK(cudaMemcpyAsync(h_bins_, d_bins_, nbins_ * sizeof(unsigned int),
                                   cudaMemcpyDeviceToHost, stream_));
    }

    void report() const {
        unsigned long long total = 0;
        for (int b = 0; b < nbins_; ++b) total += h_bins_[b]; // EXPECT: missing_sync
        printf("%llu samples in %d bins\n", total, nbins_);
    }

    void finish() { CUDA_CHECK(cudaStreamSynchronize(stream_)); }

private:
    int nbins_;
    float lo_, width_;
    cudaStream_t stream_ = nullptr;
    unsigned int* d_bins_ = nullptr;
    unsigned int* h_bins_ = nullptr;
};

#pragma once
#include <cuda_runtime.h>
#include <vector>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#define RV_CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) throw std::runtime_error(cudaGetErrorString(e)); } while (0)

__global__ void comb_reverb(const float* dry, float* wet, int n, int delay, float feedback, float mix)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float acc = 0.f, g = 1.f;
    for (int k = 0; k < 8 && i - k * delay >= 0; ++k) { acc += g * dry[i - k * delay]; g *= feedback; }
    wet[i] = (1.f - mix) * dry[i] + mix * acc;
}

class ReverbEngine {
public:
    explicit ReverbEngine(int block_frames) : n_(block_frames), dry_(block_frames)
    {
        RV_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
        RV_CHECK(cudaMalloc(&d_dry_, n_ * sizeof(float)));
        RV_CHECK(cudaMalloc(&d_wet_, n_ * sizeof(float)));
        RV_CHECK(cudaMallocHost(&h_wet_, n_ * sizeof(float)));
    }
    ~ReverbEngine()
    {
        cudaStreamSynchronize(stream_);
        cudaFreeHost(h_wet_);
        cudaFree(d_wet_);
        cudaFree(d_dry_);
        cudaStreamDestroy(stream_);
    }
    std::vector<float>& input() { return dry_; }

    // Enqueue one block: upload, reverb, download. Returns immediately.
    void process(int delay, float feedback, float mix)
    {
        RV_CHECK(cudaMemcpyAsync(d_dry_, dry_.data(), n_ * sizeof(float), cudaMemcpyHostToDevice, stream_));
        comb_reverb<<<(n_ + 255) / 256, 256, 0, stream_>>>(d_dry_, d_wet_, n_, delay, feedback, mix);
        RV_CHECK(cudaMemcpyAsync(h_wet_, d_wet_, n_ * sizeof(float), cudaMemcpyDeviceToHost, stream_));
    }

    float rms() const
    {
        double acc = 0.0;
        for (int i = 0; i < n_; ++i) acc += (double)h_wet_[i] * h_wet_[i];
        return (float)std::sqrt(acc / n_);
    }

    void flush() { RV_CHECK(cudaStreamSynchronize(stream_)); }
    const float* output() const { return h_wet_; }

private:
    int n_;
    std::vector<float> dry_;      // pageable
    float* h_wet_ = nullptr;      // pinned
    float* d_dry_ = nullptr;
    float* d_wet_ = nullptr;
    cudaStream_t stream_ = nullptr;
};

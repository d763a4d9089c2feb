#pragma once
// Temporal convolution block (depthwise conv -> layer norm -> residual add) for a
// keyword-spotting model. Its temporaries come from the stream-ordered allocator, so they
// become memory nodes of a captured graph and are returned to the pool inside it.
#include <vector>

#include "check.h"

__global__ void depthwise_conv1d(const float* __restrict__ x, const float* __restrict__ k,
                                 float* __restrict__ y, int channels, int frames, int width) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int c = blockIdx.y;
    if (t >= frames) return;
    float acc = 0.0f;
    for (int j = 0; j < width; ++j) {
        int src = t + j - width / 2;
        if (src >= 0 && src < frames) acc += k[c * width + j] * x[c * frames + src];
    }
    y[c * frames + t] = acc;
}

// One thread per frame: normalise over channels, then add the residual.
__global__ void layer_norm_residual(const float* __restrict__ y, const float* __restrict__ x,
                                    float* __restrict__ out, int channels, int frames) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= frames) return;
    float mean = 0.0f, sq = 0.0f;
    for (int c = 0; c < channels; ++c) {
        float v = y[c * frames + t];
        mean += v;
        sq += v * v;
    }
    mean /= channels;
    float inv = rsqrtf(sq / channels - mean * mean + 1e-5f);
    for (int c = 0; c < channels; ++c)
        out[c * frames + t] = x[c * frames + t] + (y[c * frames + t] - mean) * inv;
}

class ConvBlock {
public:
    ConvBlock(int channels, int width) : channels_(channels), width_(width) {
        std::vector<float> taps(static_cast<size_t>(channels) * width);
        for (size_t i = 0; i < taps.size(); ++i) taps[i] = (i % width == width / 2) ? 0.6f : 0.1f;
        CUDA_TRY(cudaMalloc(&kernel_, taps.size() * sizeof(float)));
        CUDA_TRY(cudaMemcpy(kernel_, taps.data(), taps.size() * sizeof(float),
                            cudaMemcpyHostToDevice));
    }
    ~ConvBlock() { cudaFree(kernel_); }
    ConvBlock(const ConvBlock&) = delete;
    ConvBlock& operator=(const ConvBlock&) = delete;

    void forward(const float* x, float* out, int frames, cudaStream_t stream) const {
        const size_t bytes = sizeof(float) * channels_ * frames;
        float* conv = nullptr;
        CUDA_TRY(cudaMallocAsync(&conv, bytes, stream));
        dim3 grid((frames + 127) / 128, channels_);
        depthwise_conv1d<<<grid, 128, 0, stream>>>(x, kernel_, conv, channels_, frames, width_);
        CUDA_TRY(cudaGetLastError());
        layer_norm_residual<<<(frames + 127) / 128, 128, 0, stream>>>(conv, x, out, channels_,
                                                                      frames);
        CUDA_TRY(cudaGetLastError());
        CUDA_TRY(cudaFreeAsync(conv, stream));
    }

private:
    int channels_;
    int width_;
    float* kernel_ = nullptr;
};

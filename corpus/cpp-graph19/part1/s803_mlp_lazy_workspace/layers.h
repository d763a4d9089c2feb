#pragma once
// Dense layer y = gelu(W x + b) for a batch of row vectors. The pre-activation goes through a
// per-layer workspace, sized for the largest batch seen, allocated on first use.
#include <cmath>
#include <vector>

#include "cuda_check.h"

__global__ void dense_matmul(const float* __restrict__ x, const float* __restrict__ w,
                             float* __restrict__ z, int batch, int in_dim, int out_dim) {
    int o = blockIdx.x * blockDim.x + threadIdx.x;
    int b = blockIdx.y;
    if (o >= out_dim || b >= batch) return;
    const float* row = x + static_cast<size_t>(b) * in_dim;
    float acc = 0.0f;
    for (int k = 0; k < in_dim; ++k) acc += row[k] * w[static_cast<size_t>(k) * out_dim + o];
    z[static_cast<size_t>(b) * out_dim + o] = acc;
}

__global__ void bias_gelu(const float* __restrict__ z, const float* __restrict__ bias,
                          float* __restrict__ y, int batch, int out_dim) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= batch * out_dim) return;
    float v = z[idx] + bias[idx % out_dim];
    y[idx] = 0.5f * v * (1.0f + tanhf(0.7978845608f * (v + 0.044715f * v * v * v)));
}

class Dense {
public:
    Dense(int in_dim, int out_dim, unsigned seed) : in_(in_dim), out_(out_dim) {
        std::vector<float> w(static_cast<size_t>(in_dim) * out_dim);
        std::vector<float> b(out_dim);
        unsigned state = seed;
        const float scale = 1.0f / std::sqrt(static_cast<float>(in_dim));
        for (float& v : w) {
            state = state * 1664525u + 1013904223u;
            v = scale * ((state >> 8) * (1.0f / 16777216.0f) - 0.5f);
        }
        for (int o = 0; o < out_dim; ++o) b[o] = 0.01f * (o % 7);
        CUDA_CHECK(cudaMalloc(&w_, w.size() * sizeof(float)));
        CUDA_CHECK(cudaMalloc(&b_, b.size() * sizeof(float)));
        CUDA_CHECK(cudaMemcpy(w_, w.data(), w.size() * sizeof(float), cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemcpy(b_, b.data(), b.size() * sizeof(float), cudaMemcpyHostToDevice));
    }
    ~Dense() {
        cudaFree(ws_);
        cudaFree(b_);
        cudaFree(w_);
    }
    Dense(const Dense&) = delete;
    Dense& operator=(const Dense&) = delete;

    int out_dim() const { return out_; }

    void forward(const float* x, float* y, int batch, cudaStream_t stream) {
        if (ws_ == nullptr) {
            ws_rows_ = batch;
            CUDA_CHECK(cudaMalloc(&ws_, static_cast<size_t>(batch) * out_ * sizeof(float)));  // EXPECT: uncapturable_call
        }
        dim3 grid((out_ + 127) / 128, batch);
        dense_matmul<<<grid, 128, 0, stream>>>(x, w_, ws_, batch, in_, out_);
        CUDA_CHECK(cudaGetLastError());
        int total = batch * out_;
        bias_gelu<<<(total + 255) / 256, 256, 0, stream>>>(ws_, b_, y, batch, out_);
        CUDA_CHECK(cudaGetLastError());
    }

private:
    int in_;
    int out_;
    float* w_ = nullptr;
    float* b_ = nullptr;
    float* ws_ = nullptr;
    int ws_rows_ = 0;
};

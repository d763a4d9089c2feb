// case: A LayerNorm forward pass enqueues the upload, kernel and async download on a ScopedStream inside a block; the pinned outputs are read only after the block ends, where the guard's destructor (in the header) synchronizes the stream.
// expect: none
#include "stream_guard.hpp"
#include <cmath>

__global__ void layernorm_fwd(const float* __restrict__ x, const float* __restrict__ gamma,
                              const float* __restrict__ beta, float* __restrict__ y, int cols, float eps) {
    extern __shared__ float red[];
    const float* row = x + size_t(blockIdx.x) * cols;
    float* out = y + size_t(blockIdx.x) * cols;
    float s = 0.f, s2 = 0.f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) { s += row[c]; s2 += row[c] * row[c]; }
    red[threadIdx.x] = s;
    red[blockDim.x + threadIdx.x] = s2;
    __syncthreads();
    for (int off = blockDim.x / 2; off > 0; off >>= 1) {
        if (threadIdx.x < off) {
            red[threadIdx.x] += red[threadIdx.x + off];
            red[blockDim.x + threadIdx.x] += red[blockDim.x + threadIdx.x + off];
        }
        __syncthreads();
    }
    float mean = red[0] / cols, var = red[blockDim.x] / cols - mean * mean;
    float inv = rsqrtf(var + eps);
    for (int c = threadIdx.x; c < cols; c += blockDim.x) out[c] = (row[c] - mean) * inv * gamma[c] + beta[c];
}

int main() {
    const int rows = 8192, cols = 1024;
    const size_t n = size_t(rows) * cols;
    float *h_x, *h_y, *h_gb;
    GUARD_CHECK(cudaMallocHost(&h_x, n * sizeof(float)));
    GUARD_CHECK(cudaMallocHost(&h_y, n * sizeof(float)));
    GUARD_CHECK(cudaMallocHost(&h_gb, 2 * cols * sizeof(float)));
    for (size_t i = 0; i < n; ++i) h_x[i] = std::sin(0.001f * float(i));
    for (int c = 0; c < cols; ++c) { h_gb[c] = 1.f; h_gb[cols + c] = 0.f; }

    float *d_x, *d_y, *d_gb;
    GUARD_CHECK(cudaMalloc(&d_x, n * sizeof(float)));
    GUARD_CHECK(cudaMalloc(&d_y, n * sizeof(float)));
    GUARD_CHECK(cudaMalloc(&d_gb, 2 * cols * sizeof(float)));

    float ms = 0.f;
    {
        ScopedStream stream;
        ScopedTimer timer(stream);
        GUARD_CHECK(cudaMemcpyAsync(d_x, h_x, n * sizeof(float), cudaMemcpyHostToDevice, stream));
        GUARD_CHECK(cudaMemcpyAsync(d_gb, h_gb, 2 * cols * sizeof(float), cudaMemcpyHostToDevice, stream));
        layernorm_fwd<<<rows, 256, 2 * 256 * sizeof(float), stream>>>(d_x, d_gb, d_gb + cols, d_y, cols, 1e-5f);
        GUARD_CHECK(cudaMemcpyAsync(h_y, d_y, n * sizeof(float), cudaMemcpyDeviceToHost, stream));
        ms = timer.elapsed();
    }   // ~ScopedTimer, then ~ScopedStream: cudaStreamSynchronize

    double mean = 0.0, sq = 0.0;
    for (size_t i = 0; i < n; ++i) { mean += h_y[i]; sq += double(h_y[i]) * h_y[i]; }
    printf("layernorm %.3f ms, output mean %.2e, mean square %.4f\n", ms, mean / n, sq / n);

    cudaFree(d_x); cudaFree(d_y); cudaFree(d_gb);
    cudaFreeHost(h_x); cudaFreeHost(h_y); cudaFreeHost(h_gb);
    return 0;
}

// case: an SGD training step saves a checkpoint of the weights into a std::vector with cudaMemcpyDeviceToDevice (kind pasted from the EMA-copy line above it) and downloads the loss histogram with cudaMemcpyHostToDevice; both stated directions contradict where the buffers live.
// expect: memcpy_kind_mismatch=2
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(call)                                                         \
    do {                                                                         \
        cudaError_t e = (call);                                                  \
        if (e != cudaSuccess) {                                                  \
            fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); \
            return 1;                                                            \
        }                                                                        \
    } while (0)

constexpr int kParams = 1 << 20;
constexpr int kBins = 64;

__global__ void fake_grad(const float* w, float* g, int n, int step) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) g[i] = 0.01f * w[i] + 1e-4f * float((i + step) % 7);
}

__global__ void sgd(float* w, const float* g, int n, float lr) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) w[i] -= lr * g[i];
}

__global__ void grad_histogram(const float* g, unsigned* hist, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int b = min(kBins - 1, int(fabsf(g[i]) * 1000.f));
        atomicAdd(&hist[b], 1u);
    }
}

int main() {
    const size_t wbytes = kParams * sizeof(float);
    std::vector<float> h_w(kParams, 1.f), h_ckpt(kParams);
    std::vector<unsigned> h_hist(kBins);

    float *d_w, *d_g, *d_ema;
    unsigned* d_hist;
    CUDA_CHECK(cudaMalloc(&d_w, wbytes));
    CUDA_CHECK(cudaMalloc(&d_g, wbytes));
    CUDA_CHECK(cudaMalloc(&d_ema, wbytes));
    CUDA_CHECK(cudaMalloc(&d_hist, kBins * sizeof(unsigned)));
    CUDA_CHECK(cudaMemcpy(d_w, h_w.data(), wbytes, cudaMemcpyHostToDevice));

    const int blocks = (kParams + 255) / 256;
    for (int step = 0; step < 100; ++step) {
        fake_grad<<<blocks, 256>>>(d_w, d_g, kParams, step);
        sgd<<<blocks, 256>>>(d_w, d_g, kParams, 0.1f);
    }
    CUDA_CHECK(cudaGetLastError());

    CUDA_CHECK(cudaMemset(d_hist, 0, kBins * sizeof(unsigned)));
    grad_histogram<<<blocks, 256>>>(d_g, d_hist, kParams);
    CUDA_CHECK(cudaGetLastError());

    CUDA_CHECK(cudaMemcpy(d_ema, d_w, wbytes, cudaMemcpyDeviceToDevice));
    CUDA_CHECK(cudaMemcpy(h_ckpt.data(), d_w, wbytes, cudaMemcpyDeviceToDevice)); // EXPECT: memcpy_kind_mismatch
    CUDA_CHECK(cudaMemcpy(h_hist.data(), d_hist, kBins * sizeof(unsigned), cudaMemcpyHostToDevice)); // EXPECT: memcpy_kind_mismatch

    printf("w[0] after 100 steps: %.5f, hist[0] = %u\n", h_ckpt[0], h_hist[0]);

    CUDA_CHECK(cudaFree(d_w));
    CUDA_CHECK(cudaFree(d_g));
    CUDA_CHECK(cudaFree(d_ema));
    CUDA_CHECK(cudaFree(d_hist));
    return 0;
}

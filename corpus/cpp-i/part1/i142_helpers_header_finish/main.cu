// case: a Black-Scholes pricer uses allocation and synchronization helpers from a header; finish() synchronizes the stream before the host reads the pinned call prices
// expect: none
#include "gpu_utils.h"
#include <cmath>

__global__ void black_scholes(const float* spot, const float* strike, float* call, int n,
                              float r, float vol, float t) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float sq = vol * sqrtf(t);
    float d1 = (logf(spot[i] / strike[i]) + (r + 0.5f * vol * vol) * t) / sq;
    float d2 = d1 - sq;
    float nd1 = 0.5f * erfcf(-d1 * M_SQRT1_2);
    float nd2 = 0.5f * erfcf(-d2 * M_SQRT1_2);
    call[i] = spot[i] * nd1 - strike[i] * expf(-r * t) * nd2;
}

int main() {
    const int n = 1 << 22;
    cudaStream_t s = make_stream();
    float* h_spot = pinned_alloc<float>(n);
    float* h_strike = pinned_alloc<float>(n);
    float* h_call = pinned_alloc<float>(n);
    float* d_spot = device_alloc<float>(n);
    float* d_strike = device_alloc<float>(n);
    float* d_call = device_alloc<float>(n);
    for (int i = 0; i < n; ++i) {
        h_spot[i] = 80.f + (i % 400) * 0.1f;
        h_strike[i] = 100.f;
    }

    CUDA_CHECK(cudaMemcpyAsync(d_spot, h_spot, n * sizeof(float), cudaMemcpyHostToDevice, s));
    CUDA_CHECK(cudaMemcpyAsync(d_strike, h_strike, n * sizeof(float), cudaMemcpyHostToDevice, s));
    black_scholes<<<(n + 255) / 256, 256, 0, s>>>(d_spot, d_strike, d_call, n, 0.02f, 0.3f, 1.0f);
    CUDA_CHECK(cudaMemcpyAsync(h_call, d_call, n * sizeof(float), cudaMemcpyDeviceToHost, s));
    finish(s, "pricing");

    double total = 0.0;
    for (int i = 0; i < n; ++i) total += h_call[i];
    printf("mean call price %.4f\n", total / n);

    CUDA_CHECK(cudaFree(d_call));
    CUDA_CHECK(cudaFree(d_strike));
    CUDA_CHECK(cudaFree(d_spot));
    CUDA_CHECK(cudaFreeHost(h_call));
    CUDA_CHECK(cudaFreeHost(h_strike));
    CUDA_CHECK(cudaFreeHost(h_spot));
    CUDA_CHECK(cudaStreamDestroy(s));
    return 0;
}

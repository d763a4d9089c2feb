// case: histogram analytics module zeroes a cudaMalloc'd bin array from the host with a plain loop instead of cudaMemset, and at teardown calls cudaFree on the address of a __device__ global obtained with cudaGetSymbolAddress
// expect: mismatched_free=1, host_deref_device_ptr=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstdint>

#define CUDA_CHECK(x)                                                          \
    do {                                                                       \
        cudaError_t e_ = (x);                                                  \
        if (e_ != cudaSuccess) {                                               \
            std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_));       \
            std::exit(1);                                                      \
        }                                                                      \
    } while (0)

#define NUM_BINS 1024

__device__ unsigned int g_overflow[NUM_BINS];

__global__ void histogram(const float* v, size_t n, float lo, float hi, unsigned int* bins, unsigned int* overflow) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = v[i];
    int b = (int)((x - lo) / (hi - lo) * NUM_BINS);
    if (b >= 0 && b < NUM_BINS) atomicAdd(&bins[b], 1u);
    else atomicAdd(&overflow[b < 0 ? 0 : NUM_BINS - 1], 1u);
}

struct HistogramModule {
    unsigned int* d_bins = nullptr;
    unsigned int* d_overflow = nullptr;  // points at g_overflow
    float lo = 0.f, hi = 1.f;

    void init() {
        CUDA_CHECK(cudaMalloc(&d_bins, NUM_BINS * sizeof(unsigned int)));
        for (int b = 0; b < NUM_BINS; ++b) d_bins[b] = 0u; // EXPECT: host_deref_device_ptr
        CUDA_CHECK(cudaGetSymbolAddress(reinterpret_cast<void**>(&d_overflow), g_overflow));
        CUDA_CHECK(cudaMemset(d_overflow, 0, NUM_BINS * sizeof(unsigned int)));
    }

    void run(const float* d_values, size_t n, unsigned int* h_bins) {
        histogram<<<(unsigned)((n + 255) / 256), 256>>>(d_values, n, lo, hi, d_bins, d_overflow);
        CUDA_CHECK(cudaMemcpy(h_bins, d_bins, NUM_BINS * sizeof(unsigned int), cudaMemcpyDeviceToHost));
    }

    void shutdown() {
        CUDA_CHECK(cudaDeviceSynchronize());
        cudaFree(d_bins);
        cudaFree(d_overflow); // EXPECT: mismatched_free
        d_bins = d_overflow = nullptr;
    }
};

int main() {
    const size_t n = 1u << 24;
    float* d_values = nullptr;
    CUDA_CHECK(cudaMalloc(&d_values, n * sizeof(float)));
    CUDA_CHECK(cudaMemset(d_values, 0, n * sizeof(float)));

    HistogramModule hist;
    hist.init();
    unsigned int h_bins[NUM_BINS];
    hist.run(d_values, n, h_bins);
    std::printf("bin 0: %u\n", h_bins[0]);
    hist.shutdown();
    CUDA_CHECK(cudaFree(d_values));
    return 0;
}

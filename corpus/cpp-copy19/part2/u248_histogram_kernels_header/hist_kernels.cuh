#ifndef HIST_KERNELS_CUH
#define HIST_KERNELS_CUH

#include <cuda_runtime.h>

#define HIST_BINS 64

__global__ void hist_shared(const float* samples, int n, float lo, float hi, unsigned int* bins)
{
    __shared__ unsigned int sh[HIST_BINS];
    for (int b = threadIdx.x; b < HIST_BINS; b += blockDim.x) sh[b] = 0;
    __syncthreads();
    float scale = HIST_BINS / (hi - lo);
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        int b = (int)((samples[i] - lo) * scale);
        if (b >= 0 && b < HIST_BINS) atomicAdd(&sh[b], 1u);
    }
    __syncthreads();
    for (int b = threadIdx.x; b < HIST_BINS; b += blockDim.x) atomicAdd(&bins[b], sh[b]);
}

__global__ void hist_cdf(const unsigned int* bins, float* cdf, int total)
{
    if (threadIdx.x != 0) return;
    unsigned int run = 0;
    for (int b = 0; b < HIST_BINS; ++b) {
        run += bins[b];
        cdf[b] = (float)run / total;
    }
}

#endif

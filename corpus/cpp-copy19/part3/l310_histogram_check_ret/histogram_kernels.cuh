#pragma once
#include <cuda_runtime.h>

#define NUM_BINS 256

// Propagate a CUDA error to the caller as the function's return value.
#define CHECK_RET(expr)                        \
    do {                                       \
        cudaError_t e__ = (expr);              \
        if (e__ != cudaSuccess) return e__;    \
    } while (0)

__global__ void histogram_shared(const unsigned char* img, unsigned int* hist, int n) {
    __shared__ unsigned int local[NUM_BINS];
    for (int b = threadIdx.x; b < NUM_BINS; b += blockDim.x) local[b] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&local[img[i]], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < NUM_BINS; b += blockDim.x)
        atomicAdd(&hist[b], local[b]);
}

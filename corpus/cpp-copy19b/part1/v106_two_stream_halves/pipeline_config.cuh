#pragma once
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

constexpr int kElems = 1 << 22;
constexpr int kHalf = kElems / 2;
constexpr size_t kTotalBytes = kElems * sizeof(float);
constexpr size_t kHalfBytes = kHalf * sizeof(float);
constexpr int kThreads = 256;

#define CUDA_CHECK(call)                                                    \
  do {                                                                      \
    cudaError_t err_ = (call);                                              \
    if (err_ != cudaSuccess) {                                              \
      fprintf(stderr, "CUDA error %s at %s:%d\n", cudaGetErrorString(err_), \
              __FILE__, __LINE__);                                          \
      std::exit(EXIT_FAILURE);                                              \
    }                                                                       \
  } while (0)

__global__ void saxpy_kernel(float a, const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

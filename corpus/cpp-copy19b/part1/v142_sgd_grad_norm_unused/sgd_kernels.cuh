#pragma once
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                   \
  do {                                                                     \
    cudaError_t e_ = (call);                                               \
    if (e_ != cudaSuccess) {                                               \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,                   \
              cudaGetErrorString(e_));                                     \
      std::exit(EXIT_FAILURE);                                             \
    }                                                                      \
  } while (0)

constexpr int kBlock = 256;

__global__ void grad_sq_norm(const float *grad, float *norm_sq, int n) {
  __shared__ float s[kBlock];
  float v = 0.f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    v += grad[i] * grad[i];
  s[threadIdx.x] = v;
  __syncthreads();
  for (int k = kBlock / 2; k > 0; k >>= 1) {
    if (threadIdx.x < k) s[threadIdx.x] += s[threadIdx.x + k];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(norm_sq, s[0]);
}

__global__ void sgd_update(float *param, const float *grad, float lr, float weight_decay, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) param[i] -= lr * (grad[i] + weight_decay * param[i]);
}

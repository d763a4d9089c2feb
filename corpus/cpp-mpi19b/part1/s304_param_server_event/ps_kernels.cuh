// kernels of the momentum parameter server (s304)
#pragma once
#include <cuda_runtime.h>

__global__ void ps_fill(float* p, int n, float scale, int seed) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = scale * __sinf(0.37f * (float)(i + seed));
}

// least-squares gradient of one worker's shard: g = w - target
__global__ void ps_worker_grad(const float* w, const float* target, float* g, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) g[i] = w[i] - target[i];
}

// server: momentum SGD over the whole parameter vector
__global__ void ps_apply(float* w, float* velocity, const float* g, float lr, float mu, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = mu * velocity[i] + g[i];
    velocity[i] = v;
    w[i] -= lr * v;
  }
}

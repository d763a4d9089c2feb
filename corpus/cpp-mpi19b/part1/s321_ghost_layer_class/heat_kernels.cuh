// fourth-order explicit heat equation kernels (s321); stencil half-width 2
#pragma once
#include <cuda_runtime.h>

#define HALF_WIDTH 2

__global__ void heat_init(float* u, int n, int first, int N) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float x = (float)(first + i) / (float)N;
    u[i] = (x > 0.4f && x < 0.6f) ? 1.0f : 0.0f;
  }
}

__device__ float stencil(float m2, float m1, float c, float p1, float p2) {
  return (-m2 + 16.0f * m1 - 30.0f * c + 16.0f * p1 - p2) / 12.0f;
}

__global__ void heat_interior(const float* u, float* unew, int n, float r) {
  int i = HALF_WIDTH + blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n - HALF_WIDTH) unew[i] = u[i] + r * stencil(u[i - 2], u[i - 1], u[i], u[i + 1], u[i + 2]);
}

__device__ float at(const float* u, const float* gl, const float* gr, int n, int j) {
  if (j < 0) return gl[HALF_WIDTH + j];
  if (j >= n) return gr[j - n];
  return u[j];
}

// the 2 * HALF_WIDTH edge cells, which read the ghosts
__global__ void heat_edges(const float* u, const float* gl, const float* gr, float* unew, int n, float r) {
  int t = threadIdx.x;
  if (t >= 2 * HALF_WIDTH) return;
  int i = t < HALF_WIDTH ? t : n - 2 * HALF_WIDTH + t;
  unew[i] = u[i] + r * stencil(at(u, gl, gr, n, i - 2), at(u, gl, gr, n, i - 1), u[i], at(u, gl, gr, n, i + 1),
                               at(u, gl, gr, n, i + 2));
}

#pragma once
#include <cuda_runtime.h>

// evaluates a piecewise-linear profile (knots at x = 0, 1, ..., num_knots-1) at each query point
__global__ void interp_kernel(const float* knots, int num_knots, const float* xq, float* yq, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float x = fminf(fmaxf(xq[i], 0.0f), static_cast<float>(num_knots - 1));
  int k = min(static_cast<int>(x), num_knots - 2);
  float t = x - k;
  yq[i] = knots[k] * (1.0f - t) + knots[k + 1] * t;
}

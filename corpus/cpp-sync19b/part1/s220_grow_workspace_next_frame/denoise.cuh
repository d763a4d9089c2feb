#pragma once
#include <cuda_runtime.h>

// 3-tap temporal-free box filter on one frame; `tmp` holds the frame's input copy
__global__ void box3_kernel(const float* tmp, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float l = tmp[i > 0 ? i - 1 : i];
  float r = tmp[i < n - 1 ? i + 1 : i];
  out[i] = (l + tmp[i] + r) / 3.0f;
}

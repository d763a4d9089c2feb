#pragma once
#include <cuda_runtime.h>

// Row-wise numerically stable softmax; one thread per row.
__global__ void softmax_rows(const float* __restrict__ logits, float* __restrict__ probs,
                             int rows, int cols) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const float* in = logits + static_cast<size_t>(r) * cols;
  float* out = probs + static_cast<size_t>(r) * cols;
  float m = in[0];
  for (int c = 1; c < cols; ++c) m = fmaxf(m, in[c]);
  float z = 0.f;
  for (int c = 0; c < cols; ++c) {
    out[c] = __expf(in[c] - m);
    z += out[c];
  }
  const float inv = 1.f / z;
  for (int c = 0; c < cols; ++c) out[c] *= inv;
}

// a one-layer scoring model served batch by batch (s322)
#pragma once
#include <cuda_runtime.h>

__global__ void gen_batch(float* x, int n, int batch) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = __sinf(0.003f * (float)i + 0.5f * (float)batch);
}

__global__ void init_weights(float* w, int dim) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < dim) w[i] = 1.0f / (1.0f + (float)i);
}

// score[r] = sigmoid(x[r, :] . w)
__global__ void score_rows(const float* x, const float* w, float* score, int rows, int dim) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float z = 0.0f;
  for (int d = 0; d < dim; ++d) z += x[r * dim + d] * w[d];
  score[r] = 1.0f / (1.0f + __expf(-z));
}

__global__ void standardize(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2.0f * in[i] - 1.0f;
}

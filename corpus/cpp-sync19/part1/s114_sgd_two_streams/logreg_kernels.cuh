#pragma once
// Kernels for a small logistic-regression trainer: column statistics, standardisation,
// full-batch gradient and the SGD update.
#include <cuda_runtime.h>

// stats[2*j] = mean of column j, stats[2*j+1] = 1/std of column j (x is row-major, rows x cols)
__global__ void column_stats(const float* __restrict__ x, float* __restrict__ stats, int rows, int cols) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= cols) return;
  float s = 0.f, s2 = 0.f;
  for (int r = 0; r < rows; ++r) {
    const float v = x[static_cast<size_t>(r) * cols + j];
    s += v;
    s2 += v * v;
  }
  const float mean = s / rows;
  stats[2 * j] = mean;
  stats[2 * j + 1] = rsqrtf(fmaxf(s2 / rows - mean * mean, 1e-12f));
}

__global__ void standardize(float* __restrict__ x, const float* __restrict__ stats, int rows, int cols) {
  const size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  if (i >= static_cast<size_t>(rows) * cols) return;
  const int j = static_cast<int>(i % cols);
  x[i] = (x[i] - stats[2 * j]) * stats[2 * j + 1];
}

// grad[j] = 1/rows * sum_r (sigmoid(x_r . w) - y_r) * x_rj ; one thread per feature
__global__ void logistic_grad(const float* __restrict__ x, const float* __restrict__ y,
                              const float* __restrict__ w, float* __restrict__ grad,
                              int rows, int cols) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= cols) return;
  float g = 0.f;
  for (int r = 0; r < rows; ++r) {
    const float* xr = x + static_cast<size_t>(r) * cols;
    float z = 0.f;
    for (int k = 0; k < cols; ++k) z += xr[k] * w[k];
    g += (1.f / (1.f + __expf(-z)) - y[r]) * xr[j];
  }
  grad[j] = g / rows;
}

__global__ void sgd_update(float* __restrict__ w, const float* __restrict__ grad, int cols, float lr) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < cols) w[j] -= lr * grad[j];
}

// Assignment step of Lloyd's algorithm: each point goes to its nearest centroid and is
// added to that cluster's running sum. Points are row-major, `dim` floats each.
#pragma once
#include <cfloat>
#include <cuda_runtime.h>

__global__ void assign_and_accumulate(const float* pts, int n, int dim, const float* centroids,
                                      int k, float* sums, int* counts) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float* p = pts + (size_t)i * dim;
  int best = 0;
  float best_d = FLT_MAX;
  for (int c = 0; c < k; ++c) {
    float d = 0.f;
    for (int j = 0; j < dim; ++j) {
      float diff = p[j] - centroids[c * dim + j];
      d += diff * diff;
    }
    if (d < best_d) {
      best_d = d;
      best = c;
    }
  }
  for (int j = 0; j < dim; ++j) atomicAdd(&sums[best * dim + j], p[j]);
  atomicAdd(&counts[best], 1);
}

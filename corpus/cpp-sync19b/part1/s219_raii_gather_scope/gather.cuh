#pragma once
#include <cuda_runtime.h>

// out[b, :] = table[idx[b], :]
__global__ void gather_rows_kernel(const float* table, const int* idx, float* out, int dim) {
  const int b = blockIdx.x;
  const int row = idx[b];
  for (int d = threadIdx.x; d < dim; d += blockDim.x)
    out[static_cast<size_t>(b) * dim + d] = table[static_cast<size_t>(row) * dim + d];
}

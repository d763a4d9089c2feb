// Row-scaling op of the tensor library: y = diag(scales) * x, scales given per call by the host.
#pragma once
#include "allocator.cuh"

namespace tl {

__global__ void scale_rows_kernel(const float* x, const float* row_scale, float* y, int rows, int cols) {
  int r = blockIdx.y;
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows && c < cols) {
    y[static_cast<size_t>(r) * cols + c] = x[static_cast<size_t>(r) * cols + c] * row_scale[r];
  }
}

inline bool scale_rows(DeviceAllocator& alloc, const float* d_x, float* d_y, const float* h_scales,
                       int rows, int cols, cudaStream_t stream) {
  const size_t bytes = static_cast<size_t>(rows) * sizeof(float);
  float* d_scales = static_cast<float*>(alloc.allocate(bytes));
  if (d_scales == nullptr) return false;
  cudaMemcpy(d_scales, h_scales, bytes, cudaMemcpyHostToDevice);

  dim3 block(256);
  dim3 grid((cols + block.x - 1) / block.x, rows);
  scale_rows_kernel<<<grid, block, 0, stream>>>(d_x, d_scales, d_y, rows, cols);

  // the temporary goes back to the allocator while the kernel may still read it
  alloc.release(d_scales, bytes);  // EXPECT: relies_on_implicit_sync
  return true;
}

}  // namespace tl

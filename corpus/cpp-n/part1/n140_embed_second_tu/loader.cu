// Loader of case n140 (a separate translation unit): fills the caller's table and allocates the positions.
#include "common.cuh"

void load_embeddings(float* d_table, size_t rows, size_t dim, cudaStream_t s) {
  const size_t bytes = rows * dim * sizeof(float);
  float* h_stage = nullptr;
  CUDA_CHECK(cudaMallocHost(&h_stage, bytes));
  for (size_t i = 0; i < rows * dim; ++i) h_stage[i] = float(i % 977) / 977.0f - 0.5f;
  CUDA_CHECK(cudaMemcpyAsync(d_table, h_stage, bytes, cudaMemcpyHostToDevice, s));
  CUDA_CHECK(cudaStreamSynchronize(s));
  CUDA_CHECK(cudaFreeHost(h_stage));
}

__global__ void positions_kernel(int* pos, size_t n, size_t rows) {
  size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (i < n) pos[i] = int((i * 7) % rows);
}

void alloc_positions(int** d_pos, size_t n, size_t rows, cudaStream_t s) {
  CUDA_CHECK(cudaMalloc(d_pos, n * sizeof(int)));
  positions_kernel<<<unsigned((n + 255) / 256), 256, 0, s>>>(*d_pos, n, rows);
  CUDA_CHECK(cudaGetLastError());
}

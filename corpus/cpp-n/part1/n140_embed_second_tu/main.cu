// case: Embedding gather whose table is cudaMalloc'd here but filled by load_embeddings and whose position buffer is allocated through an out-parameter by alloc_positions, both defined in loader.cu (another translation unit); the kernel's bias argument is nullptr on purpose and the kernel tests it; the result is read after synchronizing and everything is freed.
// expect: none
#include "common.cuh"

__global__ void embed(const float* table, const int* pos, const float* bias, float* out, int n, int dim) {
  int i = blockIdx.x;
  if (i >= n) return;
  for (int d = threadIdx.x; d < dim; d += blockDim.x) {
    float v = table[size_t(pos[i]) * dim + d];
    if (bias != nullptr) v += bias[d];
    out[size_t(i) * dim + d] = v;
  }
}

int main() {
  const size_t rows = 32000, dim = 512, n = 2048;
  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreate(&stream));

  float* d_table = nullptr;
  CUDA_CHECK(cudaMalloc(&d_table, rows * dim * sizeof(float)));
  load_embeddings(d_table, rows, dim, stream);

  int* d_pos = nullptr;
  alloc_positions(&d_pos, n, rows, stream);

  float *d_out, *h_out;
  CUDA_CHECK(cudaMalloc(&d_out, n * dim * sizeof(float)));
  CUDA_CHECK(cudaMallocHost(&h_out, n * dim * sizeof(float)));
  const float* d_bias = nullptr;  // this checkpoint has no embedding bias
  embed<<<unsigned(n), 128, 0, stream>>>(d_table, d_pos, d_bias, d_out, int(n), int(dim));
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaMemcpyAsync(h_out, d_out, n * dim * sizeof(float), cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  printf("out[0][0] = %f, out[n-1][dim-1] = %f\n", h_out[0], h_out[n * dim - 1]);

  CUDA_CHECK(cudaStreamDestroy(stream));
  CUDA_CHECK(cudaFree(d_table));
  CUDA_CHECK(cudaFree(d_pos));
  CUDA_CHECK(cudaFree(d_out));
  CUDA_CHECK(cudaFreeHost(h_out));
  return 0;
}

// case: layernorm launches go through enqueue-only launchers in kernels.cuh; main follows each launcher with CUDA_CHECK(cudaGetLastError()) or the header's check_last() before synchronizing the stream.
// expect: none
#include <cmath>
#include <cstdio>

#include "cuda_check.h"
#include "kernels.cuh"

int main() {
  const int rows = 1024, cols = 768;
  const size_t n = static_cast<size_t>(rows) * cols;

  float* h_x = nullptr;
  float* h_y = nullptr;
  CUDA_CHECK(cudaMallocHost(&h_x, n * sizeof(float)));
  CUDA_CHECK(cudaMallocHost(&h_y, n * sizeof(float)));
  for (size_t i = 0; i < n; ++i) h_x[i] = std::cos(0.37f * static_cast<float>(i % 997));

  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

  float *d_x = nullptr, *d_y = nullptr;
  float2* d_stats = nullptr;
  CUDA_CHECK(cudaMalloc(&d_x, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_y, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_stats, rows * sizeof(float2)));
  CUDA_CHECK(cudaMemcpyAsync(d_x, h_x, n * sizeof(float), cudaMemcpyHostToDevice, stream));

  launch_row_stats(d_x, d_stats, rows, cols, stream);
  CUDA_CHECK(cudaGetLastError());
  launch_normalize(d_x, d_stats, d_y, rows, cols, stream);
  check_last("normalize");

  CUDA_CHECK(cudaMemcpyAsync(h_y, d_y, n * sizeof(float), cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));

  double mean0 = 0.0, var0 = 0.0;
  for (int c = 0; c < cols; ++c) mean0 += h_y[c];
  mean0 /= cols;
  for (int c = 0; c < cols; ++c) var0 += (h_y[c] - mean0) * (h_y[c] - mean0);
  std::printf("row 0: mean %.2e, var %.4f\n", mean0, var0 / cols);

  CUDA_CHECK(cudaFree(d_stats));
  CUDA_CHECK(cudaFree(d_y));
  CUDA_CHECK(cudaFree(d_x));
  CUDA_CHECK(cudaStreamDestroy(stream));
  CUDA_CHECK(cudaFreeHost(h_y));
  CUDA_CHECK(cudaFreeHost(h_x));
  return 0;
}

// case: near miss: layer-norm forward whose per-row statistics live in a StreamBuffer (cudaMallocAsync / cudaFreeAsync on the kernels' stream); the scratch is released in stream order at the end of layer_norm, right after the launches, and the result is read after cudaStreamSynchronize
// expect: none
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "stream_buffer.cuh"

__global__ void row_stats(const float* __restrict__ x, float2* __restrict__ stats, int rows, int cols) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const float* xr = x + static_cast<size_t>(r) * cols;
  float mean = 0.f;
  for (int c = 0; c < cols; ++c) mean += xr[c];
  mean /= cols;
  float var = 0.f;
  for (int c = 0; c < cols; ++c) var += (xr[c] - mean) * (xr[c] - mean);
  stats[r] = make_float2(mean, rsqrtf(var / cols + 1e-5f));
}

__global__ void normalize_rows(const float* __restrict__ x, const float2* __restrict__ stats,
                               const float* __restrict__ gamma, const float* __restrict__ beta,
                               float* __restrict__ y, int rows, int cols) {
  const size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  if (i >= static_cast<size_t>(rows) * cols) return;
  const int r = static_cast<int>(i / cols), c = static_cast<int>(i % cols);
  y[i] = (x[i] - stats[r].x) * stats[r].y * gamma[c] + beta[c];
}

static void layer_norm(const float* d_x, const float* d_gamma, const float* d_beta, float* d_y,
                       int rows, int cols, cudaStream_t stream) {
  StreamBuffer<float2> stats(rows, stream);
  row_stats<<<(rows + 127) / 128, 128, 0, stream>>>(d_x, stats.get(), rows, cols);
  const size_t total = static_cast<size_t>(rows) * cols;
  normalize_rows<<<static_cast<unsigned>((total + 255) / 256), 256, 0, stream>>>(d_x, stats.get(), d_gamma, d_beta, d_y, rows, cols);
  CUDA_CHECK(cudaGetLastError());
}

int main(int argc, char** argv) {
  const int rows = argc > 1 ? std::atoi(argv[1]) : 32768;
  const int cols = 768;
  const size_t total = static_cast<size_t>(rows) * cols;

  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

  float *h_x = nullptr, *h_y = nullptr, *h_affine = nullptr;
  CUDA_CHECK(cudaMallocHost(&h_x, total * sizeof(float)));
  CUDA_CHECK(cudaMallocHost(&h_y, total * sizeof(float)));
  CUDA_CHECK(cudaMallocHost(&h_affine, 2 * cols * sizeof(float)));
  for (size_t i = 0; i < total; ++i) h_x[i] = std::sin(0.017f * i) * 3.f + (i % cols) * 0.01f;
  for (int c = 0; c < cols; ++c) {
    h_affine[c] = 1.f;
    h_affine[cols + c] = 0.f;
  }

  float *d_x = nullptr, *d_y = nullptr, *d_affine = nullptr;
  CUDA_CHECK(cudaMalloc(&d_x, total * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_y, total * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_affine, 2 * cols * sizeof(float)));
  CUDA_CHECK(cudaMemcpyAsync(d_x, h_x, total * sizeof(float), cudaMemcpyHostToDevice, stream));
  CUDA_CHECK(cudaMemcpyAsync(d_affine, h_affine, 2 * cols * sizeof(float), cudaMemcpyHostToDevice, stream));

  layer_norm(d_x, d_affine, d_affine + cols, d_y, rows, cols, stream);

  CUDA_CHECK(cudaMemcpyAsync(h_y, d_y, total * sizeof(float), cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  double m = 0.0, v = 0.0;
  for (int c = 0; c < cols; ++c) m += h_y[c];
  m /= cols;
  for (int c = 0; c < cols; ++c) v += (h_y[c] - m) * (h_y[c] - m);
  std::printf("row 0: mean %.2e var %.4f\n", m, v / cols);

  CUDA_CHECK(cudaFree(d_x));
  CUDA_CHECK(cudaFree(d_y));
  CUDA_CHECK(cudaFree(d_affine));
  CUDA_CHECK(cudaFreeHost(h_x));
  CUDA_CHECK(cudaFreeHost(h_y));
  CUDA_CHECK(cudaFreeHost(h_affine));
  CUDA_CHECK(cudaStreamDestroy(stream));
  return 0;
}

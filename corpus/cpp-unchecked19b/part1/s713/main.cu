// case: a row-wise softmax launches two kernels, each followed by a KERNEL_CHECK() macro from the case's header that reads cudaGetLastError, and checks every other call with CUDA_CHECK.
// expect: none
#include <cmath>
#include <cstdio>
#include <vector>

#include "kernel_check.h"

__global__ void row_max(const float* x, float* mx, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float m = x[r * cols];
  for (int c = 1; c < cols; ++c) m = fmaxf(m, x[r * cols + c]);
  mx[r] = m;
}

__global__ void softmax_rows(const float* x, const float* mx, float* y, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float sum = 0.0f;
  for (int c = 0; c < cols; ++c) {
    float e = __expf(x[r * cols + c] - mx[r]);
    y[r * cols + c] = e;
    sum += e;
  }
  for (int c = 0; c < cols; ++c) y[r * cols + c] /= sum;
}

int main() {
  const int rows = 2048, cols = 128;
  const size_t n = static_cast<size_t>(rows) * cols;
  std::vector<float> h_x(n), h_y(n);
  for (size_t i = 0; i < n; ++i) h_x[i] = std::sin(0.01f * static_cast<float>(i));

  float *d_x = nullptr, *d_max = nullptr, *d_y = nullptr;
  CUDA_CHECK(cudaMalloc(&d_x, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_max, rows * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_y, n * sizeof(float)));
  CUDA_CHECK(cudaMemcpy(d_x, h_x.data(), n * sizeof(float), cudaMemcpyHostToDevice));

  const int threads = 128;
  const int blocks = (rows + threads - 1) / threads;
  row_max<<<blocks, threads>>>(d_x, d_max, rows, cols);
  KERNEL_CHECK();
  softmax_rows<<<blocks, threads>>>(d_x, d_max, d_y, rows, cols);
  KERNEL_CHECK();

  CUDA_CHECK(cudaMemcpy(h_y.data(), d_y, n * sizeof(float), cudaMemcpyDeviceToHost));

  double worst = 0.0;
  for (int r = 0; r < rows; ++r) {
    double s = 0.0;
    for (int c = 0; c < cols; ++c) s += h_y[static_cast<size_t>(r) * cols + c];
    worst = std::fmax(worst, std::fabs(s - 1.0));
  }
  std::printf("max |row sum - 1| = %.2e\n", worst);

  CUDA_CHECK(cudaFree(d_y));
  CUDA_CHECK(cudaFree(d_max));
  CUDA_CHECK(cudaFree(d_x));
  return worst < 1e-4 ? 0 : 1;
}

// case: near miss: the destination std::vector is page-locked with cudaHostRegister, the cudaMemcpyAsync into it is therefore pinned, and the host reads it only after cudaStreamSynchronize
// expect: none
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                      \
  do {                                                                        \
    cudaError_t err_ = (call);                                                \
    if (err_ != cudaSuccess) {                                                \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
      std::exit(EXIT_FAILURE);                                                \
    }                                                                         \
  } while (0)

// Cumulative distribution of a 1-D density on a uniform grid (trapezoid rule), one block.
__global__ void cumulative_trapezoid(const float* __restrict__ density, float* __restrict__ cdf, int n, float dx) {
  if (threadIdx.x != 0) return;
  float acc = 0.f;
  cdf[0] = 0.f;
  for (int i = 1; i < n; ++i) {
    acc += 0.5f * dx * (density[i - 1] + density[i]);
    cdf[i] = acc;
  }
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : (1 << 20);
  const float dx = 8.f / (n - 1);

  std::vector<float> density(n);
  for (int i = 0; i < n; ++i) {
    const float x = -4.f + i * dx;
    density[i] = std::exp(-0.5f * x * x) / std::sqrt(2.f * 3.14159265f);
  }
  std::vector<float> cdf(n);
  CUDA_CHECK(cudaHostRegister(cdf.data(), n * sizeof(float), cudaHostRegisterDefault));

  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreate(&stream));
  float *d_density = nullptr, *d_cdf = nullptr;
  CUDA_CHECK(cudaMalloc(&d_density, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_cdf, n * sizeof(float)));
  CUDA_CHECK(cudaMemcpy(d_density, density.data(), n * sizeof(float), cudaMemcpyHostToDevice));

  cumulative_trapezoid<<<1, 32, 0, stream>>>(d_density, d_cdf, n, dx);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaMemcpyAsync(cdf.data(), d_cdf, n * sizeof(float), cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));

  int median = 0;
  while (median < n && cdf[median] < 0.5f) ++median;
  std::printf("total mass %.6f, median at x = %.4f\n", cdf[n - 1], -4.f + median * dx);

  CUDA_CHECK(cudaFree(d_density));
  CUDA_CHECK(cudaFree(d_cdf));
  CUDA_CHECK(cudaHostUnregister(cdf.data()));
  CUDA_CHECK(cudaStreamDestroy(stream));
  return 0;
}

// case: near miss: zero-copy particle-in-cell deposition into mapped pinned memory (cudaHostAllocMapped); cudaDeviceSynchronize comes before the host reads the mapped grid, and the particle buffer is freed after it
// expect: none
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(call)                                                           \
  do {                                                                        \
    cudaError_t e_ = (call);                                                  \
    if (e_ != cudaSuccess) {                                                  \
      std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
      return EXIT_FAILURE;                                                    \
    }                                                                         \
  } while (0)

__global__ void zero_grid(float* grid, int cells) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c < cells) grid[c] = 0.f;
}

// Cloud-in-cell charge deposition on a periodic 1-D grid.
__global__ void deposit_cic(const float* __restrict__ x, float* grid, int n, int cells, float dx, float q) {
  const int p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= n) return;
  const float s = x[p] / dx;
  const int left = static_cast<int>(floorf(s));
  const float frac = s - left;
  atomicAdd(&grid[((left % cells) + cells) % cells], q * (1.f - frac));
  atomicAdd(&grid[((left + 1) % cells + cells) % cells], q * frac);
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : (1 << 22);
  const int cells = 4096;
  const float length = 1.f, dx = length / cells;

  CHECK(cudaSetDeviceFlags(cudaDeviceMapHost));

  float* h_grid = nullptr;
  float* d_grid = nullptr;
  CHECK(cudaHostAlloc(&h_grid, cells * sizeof(float), cudaHostAllocMapped));
  CHECK(cudaHostGetDevicePointer(&d_grid, h_grid, 0));

  std::vector<float> x(n);
  for (int p = 0; p < n; ++p) x[p] = length * std::fmod(p * 0.6180339887f, 1.f);
  float* d_x = nullptr;
  CHECK(cudaMalloc(&d_x, n * sizeof(float)));
  CHECK(cudaMemcpy(d_x, x.data(), n * sizeof(float), cudaMemcpyHostToDevice));

  zero_grid<<<(cells + 255) / 256, 256>>>(d_grid, cells);
  deposit_cic<<<(n + 255) / 256, 256>>>(d_x, d_grid, n, cells, dx, 1.f / n);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());

  double total = 0.0, maxdev = 0.0;
  for (int c = 0; c < cells; ++c) {
    total += h_grid[c];
    maxdev = std::fmax(maxdev, std::fabs(h_grid[c] * cells - 1.0));
  }
  std::printf("total charge %.6f, max deviation from uniform %.3e\n", total, maxdev);

  CHECK(cudaFree(d_x));
  CHECK(cudaFreeHost(h_grid));
  return 0;
}

// case: 2-D Poisson red-black Gauss-Seidel; kernels run on a stream made by plain cudaStreamCreate (a blocking stream), and the residual comes back with cudaMemcpy on the legacy default stream, which waits for that stream's work and returns when the copy is done, so the host reads it right away (near-miss)
// expect: none
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(call)                                                        \
  do {                                                                          \
    cudaError_t e_ = (call);                                                    \
    if (e_ != cudaSuccess) {                                                    \
      std::fprintf(stderr, "poisson: %s at line %d\n", cudaGetErrorString(e_),  \
                   __LINE__);                                                   \
      std::exit(1);                                                             \
    }                                                                           \
  } while (0)

__global__ void rb_sweep(float* u, const float* f, int n, float h2, int color) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x <= 0 || y <= 0 || x >= n - 1 || y >= n - 1 || ((x + y) & 1) != color) return;
  int c = y * n + x;
  u[c] = 0.25f * (u[c - 1] + u[c + 1] + u[c - n] + u[c + n] - h2 * f[c]);
}

__global__ void residual_rows(const float* u, const float* f, int n, float inv_h2, float* row_res) {
  int y = blockIdx.x * blockDim.x + threadIdx.x;
  if (y <= 0 || y >= n - 1) {
    if (y < n) row_res[y] = 0.f;
    return;
  }
  float acc = 0.f;
  for (int x = 1; x < n - 1; ++x) {
    int c = y * n + x;
    float r = f[c] - inv_h2 * (u[c - 1] + u[c + 1] + u[c - n] + u[c + n] - 4.f * u[c]);
    acc += r * r;
  }
  row_res[y] = acc;
}

__global__ void init_rhs(float* f, float* u, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n * n) {
    f[i] = 1.f;
    u[i] = 0.f;
  }
}

int main() {
  const int n = 1025;
  const float h = 1.f / (n - 1);
  cudaStream_t s;
  CUDA_CHECK(cudaStreamCreate(&s));  // blocking: synchronizes with the legacy default stream

  float *d_u = nullptr, *d_f = nullptr, *d_res = nullptr;
  CUDA_CHECK(cudaMalloc(&d_u, size_t(n) * n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_f, size_t(n) * n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_res, n * sizeof(float)));
  init_rhs<<<(n * n + 255) / 256, 256, 0, s>>>(d_f, d_u, n);

  std::vector<float> row_res(n);
  dim3 block(16, 16), grid((n + 15) / 16, (n + 15) / 16);
  for (int cycle = 0; cycle < 20; ++cycle) {
    for (int it = 0; it < 50; ++it) {
      rb_sweep<<<grid, block, 0, s>>>(d_u, d_f, n, h * h, 0);
      rb_sweep<<<grid, block, 0, s>>>(d_u, d_f, n, h * h, 1);
    }
    residual_rows<<<(n + 127) / 128, 128, 0, s>>>(d_u, d_f, n, 1.f / (h * h), d_res);
    CUDA_CHECK(cudaMemcpy(row_res.data(), d_res, n * sizeof(float), cudaMemcpyDeviceToHost));
    double total = 0.0;
    for (float r : row_res) total += r;
    std::printf("cycle %2d residual %.6e\n", cycle, std::sqrt(total));
  }

  cudaFree(d_res);
  cudaFree(d_f);
  cudaFree(d_u);
  cudaStreamDestroy(s);
  return 0;
}

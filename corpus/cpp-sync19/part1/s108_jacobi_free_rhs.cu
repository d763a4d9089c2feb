// case: Jacobi iterations for a 2-D Poisson problem on the legacy stream; the right-hand side is cudaFreed after the loop and before the blocking copy of the solution, while the last sweeps may still read it
// expect: relies_on_implicit_sync=1
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <utility>
#include <vector>
#include <cuda_runtime.h>

#define CHECK_CUDA(call)                                                     \
  do {                                                                       \
    cudaError_t err_ = (call);                                               \
    if (err_ != cudaSuccess) {                                               \
      std::fprintf(stderr, "%s -> %s\n", #call, cudaGetErrorString(err_));    \
      return EXIT_FAILURE;                                                   \
    }                                                                        \
  } while (0)

__global__ void jacobi_sweep(const float* __restrict__ u, float* __restrict__ u_new,
                             const float* __restrict__ f, int n, float h2) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= n || j >= n) return;
  const int k = j * n + i;
  if (i == 0 || j == 0 || i == n - 1 || j == n - 1) {
    u_new[k] = 0.f;
    return;
  }
  u_new[k] = 0.25f * (u[k - 1] + u[k + 1] + u[k - n] + u[k + n] + h2 * f[k]);
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 1024;
  const int iters = argc > 2 ? std::atoi(argv[2]) : 2000;
  const float h = 1.f / (n - 1);
  const size_t bytes = size_t(n) * n * sizeof(float);

  std::vector<float> f(size_t(n) * n);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i)
      f[size_t(j) * n + i] = 2.f * 3.14159265f * 3.14159265f * std::sin(3.14159265f * i * h) *
                             std::sin(3.14159265f * j * h);

  float *d_u = nullptr, *d_unew = nullptr, *d_f = nullptr;
  CHECK_CUDA(cudaMalloc(&d_u, bytes));
  CHECK_CUDA(cudaMalloc(&d_unew, bytes));
  CHECK_CUDA(cudaMalloc(&d_f, bytes));
  CHECK_CUDA(cudaMemset(d_u, 0, bytes));
  CHECK_CUDA(cudaMemcpy(d_f, f.data(), bytes, cudaMemcpyHostToDevice));

  const dim3 block(16, 16);
  const dim3 grid((n + 15) / 16, (n + 15) / 16);
  for (int it = 0; it < iters; ++it) {
    jacobi_sweep<<<grid, block>>>(d_u, d_unew, d_f, n, h * h);
    std::swap(d_u, d_unew);
  }
  CHECK_CUDA(cudaGetLastError());

  CHECK_CUDA(cudaFree(d_f));  // EXPECT: relies_on_implicit_sync
  std::vector<float> u(size_t(n) * n);
  CHECK_CUDA(cudaMemcpy(u.data(), d_u, bytes, cudaMemcpyDeviceToHost));

  double err = 0.0;
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i)
      err = std::fmax(err, std::fabs(u[size_t(j) * n + i] -
                                     std::sin(3.14159265 * i * h) * std::sin(3.14159265 * j * h)));
  std::printf("max error after %d sweeps: %.3e\n", iters, err);

  CHECK_CUDA(cudaFree(d_u));
  CHECK_CUDA(cudaFree(d_unew));
  return 0;
}

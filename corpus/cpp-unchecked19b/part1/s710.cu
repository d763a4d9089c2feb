// case: a Jacobi solver launches a sweep and a residual kernel in its iteration loop and reads the residual back with a checked blocking cudaMemcpy, with no cudaGetLastError after either launch.
// expect: unchecked_cuda_result=2
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <utility>
#include <vector>

#include <cuda_runtime.h>

#define checkCuda(val) check_result((val), #val, __FILE__, __LINE__)

static void check_result(cudaError_t result, const char* expr, const char* file, int line) {
  if (result != cudaSuccess) {
    std::fprintf(stderr, "%s:%d: %s returned %s\n", file, line, expr, cudaGetErrorName(result));
    std::exit(EXIT_FAILURE);
  }
}

__global__ void jacobi_step(const float* u, float* u_new, const float* f, int nx, int ny, float h2) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < 1 || y < 1 || x >= nx - 1 || y >= ny - 1) return;
  int i = y * nx + x;
  u_new[i] = 0.25f * (u[i - 1] + u[i + 1] + u[i - nx] + u[i + nx] + h2 * f[i]);
}

__global__ void residual_sq(const float* u, const float* f, float* res, int nx, int ny, float h2) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < 1 || y < 1 || x >= nx - 1 || y >= ny - 1) return;
  int i = y * nx + x;
  float r = u[i - 1] + u[i + 1] + u[i - nx] + u[i + nx] - 4.0f * u[i] + h2 * f[i];
  atomicAdd(res, r * r);
}

int main() {
  const int nx = 512, ny = 512, max_iters = 5000, check_every = 100;
  const float h = 1.0f / (nx - 1), h2 = h * h, tol = 1e-4f;
  const size_t bytes = static_cast<size_t>(nx) * ny * sizeof(float);
  std::vector<float> h_f(static_cast<size_t>(nx) * ny, 1.0f);

  float *d_u, *d_unew, *d_f, *d_res;
  checkCuda(cudaMalloc(&d_u, bytes));
  checkCuda(cudaMalloc(&d_unew, bytes));
  checkCuda(cudaMalloc(&d_f, bytes));
  checkCuda(cudaMalloc(&d_res, sizeof(float)));
  checkCuda(cudaMemset(d_u, 0, bytes));
  checkCuda(cudaMemset(d_unew, 0, bytes));
  checkCuda(cudaMemcpy(d_f, h_f.data(), bytes, cudaMemcpyHostToDevice));

  dim3 block(16, 16);
  dim3 grid((nx + block.x - 1) / block.x, (ny + block.y - 1) / block.y);
  float res = 0.0f;
  int it = 0;
  for (; it < max_iters; ++it) {
    jacobi_step<<<grid, block>>>(d_u, d_unew, d_f, nx, ny, h2);  // EXPECT: unchecked_cuda_result
    std::swap(d_u, d_unew);
    if (it % check_every == 0) {
      checkCuda(cudaMemset(d_res, 0, sizeof(float)));
      residual_sq<<<grid, block>>>(d_u, d_f, d_res, nx, ny, h2);  // EXPECT: unchecked_cuda_result
      checkCuda(cudaMemcpy(&res, d_res, sizeof(float), cudaMemcpyDeviceToHost));
      if (std::sqrt(res) < tol) break;
    }
  }
  std::printf("stopped after %d iterations, residual %.3e\n", it, std::sqrt(res));

  std::vector<float> h_u(static_cast<size_t>(nx) * ny);
  checkCuda(cudaMemcpy(h_u.data(), d_u, bytes, cudaMemcpyDeviceToHost));
  std::printf("u(center) = %f\n", h_u[(ny / 2) * nx + nx / 2]);

  checkCuda(cudaFree(d_u));
  checkCuda(cudaFree(d_unew));
  checkCuda(cudaFree(d_f));
  checkCuda(cudaFree(d_res));
  return 0;
}

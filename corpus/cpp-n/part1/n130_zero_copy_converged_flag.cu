// case: Jacobi solver signals convergence through a mapped (zero-copy) pinned flag: the host sets the flag before each launch, the kernel clears it through the device alias, and the host reads it only after cudaEventSynchronize on an event recorded after the kernel; the result comes back with a blocking copy.
// expect: none
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <utility>
#include <vector>

#define CUDA_CHECK(call)                                                        \
  do {                                                                          \
    cudaError_t err_ = (call);                                                  \
    if (err_ != cudaSuccess) {                                                  \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
      exit(EXIT_FAILURE);                                                       \
    }                                                                           \
  } while (0)

__global__ void jacobi(const float* u, float* unew, const float* f, int n, float h2, float tol, int* converged) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= n || y >= n) return;
  int i = y * n + x;
  if (x == 0 || y == 0 || x == n - 1 || y == n - 1) {
    unew[i] = u[i];
    return;
  }
  float v = 0.25f * (u[i - 1] + u[i + 1] + u[i - n] + u[i + n] - h2 * f[i]);
  unew[i] = v;
  if (fabsf(v - u[i]) > tol) *converged = 0;
}

int main() {
  CUDA_CHECK(cudaSetDeviceFlags(cudaDeviceMapHost));
  const int n = 1024;
  const size_t bytes = size_t(n) * n * sizeof(float);
  const float h = 1.0f / (n - 1);

  std::vector<float> h_u(size_t(n) * n, 0.0f), h_f(size_t(n) * n, 1.0f);
  float *d_u, *d_unew, *d_f;
  CUDA_CHECK(cudaMalloc(&d_u, bytes));
  CUDA_CHECK(cudaMalloc(&d_unew, bytes));
  CUDA_CHECK(cudaMalloc(&d_f, bytes));
  CUDA_CHECK(cudaMemcpy(d_u, h_u.data(), bytes, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_f, h_f.data(), bytes, cudaMemcpyHostToDevice));

  int* h_converged = nullptr;
  CUDA_CHECK(cudaHostAlloc(&h_converged, sizeof(int), cudaHostAllocMapped));
  int* d_converged = nullptr;
  CUDA_CHECK(cudaHostGetDevicePointer(&d_converged, h_converged, 0));

  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreate(&stream));
  cudaEvent_t step_done;
  CUDA_CHECK(cudaEventCreateWithFlags(&step_done, cudaEventDisableTiming));

  dim3 block(16, 16), grid((n + 15) / 16, (n + 15) / 16);
  int iter = 0;
  for (; iter < 20000; ++iter) {
    *h_converged = 1;
    jacobi<<<grid, block, 0, stream>>>(d_u, d_unew, d_f, n, h * h, 1e-6f, d_converged);
    CUDA_CHECK(cudaEventRecord(step_done, stream));
    std::swap(d_u, d_unew);
    CUDA_CHECK(cudaEventSynchronize(step_done));
    if (*h_converged) break;
  }
  CUDA_CHECK(cudaMemcpy(h_u.data(), d_u, bytes, cudaMemcpyDeviceToHost));
  printf("stopped after %d iterations, u(center) = %g\n", iter, h_u[size_t(n / 2) * n + n / 2]);

  CUDA_CHECK(cudaEventDestroy(step_done));
  CUDA_CHECK(cudaStreamDestroy(stream));
  CUDA_CHECK(cudaFreeHost(h_converged));
  CUDA_CHECK(cudaFree(d_u));
  CUDA_CHECK(cudaFree(d_unew));
  CUDA_CHECK(cudaFree(d_f));
  return 0;
}

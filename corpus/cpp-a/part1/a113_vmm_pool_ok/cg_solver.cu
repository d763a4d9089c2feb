// case: conjugate-gradient-style vector updates on VMM blocks from a helper header (folder case); every block is mapped and granted access before use, the handle is released while mapped (allowed), and teardown synchronizes, unmaps, then frees the range (near-miss)
// expect: none
#include "vmm_block.h"

#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>

#define CUDA_CHECK(call)                                                        \
  do {                                                                          \
    cudaError_t e_ = (call);                                                    \
    if (e_ != cudaSuccess) {                                                    \
      std::fprintf(stderr, "%s\n", cudaGetErrorString(e_));                     \
      std::exit(1);                                                             \
    }                                                                           \
  } while (0)

__global__ void laplacian_1d(const double* x, double* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double left = i > 0 ? x[i - 1] : 0.0;
  double right = i + 1 < n ? x[i + 1] : 0.0;
  y[i] = 2.0 * x[i] - left - right;
}

__global__ void fill(double* y, double v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = v;
}

__global__ void axpy(double a, const double* x, double* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] += a * x[i];
}

__global__ void dot_partial(const double* a, const double* b, double* out, int n) {
  __shared__ double tile[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  tile[threadIdx.x] = i < n ? a[i] * b[i] : 0.0;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) tile[threadIdx.x] += tile[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(out, tile[0]);
}

int main() {
  CUDA_CHECK(cudaSetDevice(0));
  CUDA_CHECK(cudaFree(0));
  const int n = 1 << 22;
  const int blocks = (n + 255) / 256;

  VmmBlock x = vmm_alloc(n * sizeof(double), 0);
  VmmBlock r = vmm_alloc(n * sizeof(double), 0);
  VmmBlock Ar = vmm_alloc(n * sizeof(double), 0);
  double* dx = reinterpret_cast<double*>(x.ptr);
  double* dr = reinterpret_cast<double*>(r.ptr);
  double* dAr = reinterpret_cast<double*>(Ar.ptr);

  double* d_dots = nullptr;
  double* h_dots = nullptr;
  CUDA_CHECK(cudaMalloc(&d_dots, 2 * sizeof(double)));
  CUDA_CHECK(cudaMallocHost(&h_dots, 2 * sizeof(double)));

  cudaStream_t s;
  CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  CUDA_CHECK(cudaMemsetAsync(dx, 0, x.size, s));
  fill<<<blocks, 256, 0, s>>>(dr, 1.0, n);

  // steepest descent on A = tridiag(-1, 2, -1), b = 1, x0 = 0 (r0 = b)
  for (int it = 0; it < 50; ++it) {
    laplacian_1d<<<blocks, 256, 0, s>>>(dr, dAr, n);
    CUDA_CHECK(cudaMemsetAsync(d_dots, 0, 2 * sizeof(double), s));
    dot_partial<<<blocks, 256, 0, s>>>(dr, dr, d_dots, n);
    dot_partial<<<blocks, 256, 0, s>>>(dr, dAr, d_dots + 1, n);
    CUDA_CHECK(cudaMemcpyAsync(h_dots, d_dots, 2 * sizeof(double), cudaMemcpyDeviceToHost, s));
    CUDA_CHECK(cudaStreamSynchronize(s));
    const double rr = h_dots[0];
    const double alpha = rr / h_dots[1];
    if (it % 10 == 0) std::printf("it %d |r| = %.6e\n", it, std::sqrt(rr));
    axpy<<<blocks, 256, 0, s>>>(alpha, dr, dx, n);
    axpy<<<blocks, 256, 0, s>>>(-alpha, dAr, dr, n);
  }

  CUDA_CHECK(cudaStreamSynchronize(s));
  vmm_free(Ar);
  vmm_free(r);
  vmm_free(x);
  cudaFreeHost(h_dots);
  cudaFree(d_dots);
  cudaStreamDestroy(s);
  return 0;
}

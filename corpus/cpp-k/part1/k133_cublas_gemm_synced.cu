// case: A cuBLAS SGEMM wrapper uploads A and B from pinned buffers on its stream, runs cublasSgemm (beta = 0, so C needs no initialization) and a bias kernel on the same stream, downloads C into pinned memory and synchronizes before the host checks it: correct.
// expect: none
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(call)                                                       \
  do {                                                                         \
    cudaError_t e_ = (call);                                                   \
    if (e_ != cudaSuccess) {                                                   \
      std::fprintf(stderr, "CUDA %s: %s\n", #call, cudaGetErrorString(e_));    \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

#define CUBLAS_CHECK(call)                                                     \
  do {                                                                         \
    cublasStatus_t s_ = (call);                                                \
    if (s_ != CUBLAS_STATUS_SUCCESS) {                                         \
      std::fprintf(stderr, "cuBLAS %s: status %d\n", #call, int(s_));          \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

__global__ void add_bias_relu(float* c, const float* __restrict__ bias, int m, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;  // column-major: row = i % m
  if (i < m * n) c[i] = fmaxf(c[i] + bias[i % m], 0.f);
}

struct GemmProblem {
  int m, n, k;
  float *h_a, *h_b, *h_c, *h_bias;
  float *d_a, *d_b, *d_c, *d_bias;
};

static void alloc_problem(GemmProblem& p) {
  CUDA_CHECK(cudaMallocHost(&p.h_a, sizeof(float) * p.m * p.k));
  CUDA_CHECK(cudaMallocHost(&p.h_b, sizeof(float) * p.k * p.n));
  CUDA_CHECK(cudaMallocHost(&p.h_c, sizeof(float) * p.m * p.n));
  CUDA_CHECK(cudaMallocHost(&p.h_bias, sizeof(float) * p.m));
  CUDA_CHECK(cudaMalloc(&p.d_a, sizeof(float) * p.m * p.k));
  CUDA_CHECK(cudaMalloc(&p.d_b, sizeof(float) * p.k * p.n));
  CUDA_CHECK(cudaMalloc(&p.d_c, sizeof(float) * p.m * p.n));
  CUDA_CHECK(cudaMalloc(&p.d_bias, sizeof(float) * p.m));
}

static void free_problem(GemmProblem& p) {
  CUDA_CHECK(cudaFree(p.d_bias));
  CUDA_CHECK(cudaFree(p.d_c));
  CUDA_CHECK(cudaFree(p.d_b));
  CUDA_CHECK(cudaFree(p.d_a));
  CUDA_CHECK(cudaFreeHost(p.h_bias));
  CUDA_CHECK(cudaFreeHost(p.h_c));
  CUDA_CHECK(cudaFreeHost(p.h_b));
  CUDA_CHECK(cudaFreeHost(p.h_a));
}

int main() {
  GemmProblem p{};
  p.m = 1024;
  p.n = 512;
  p.k = 768;
  alloc_problem(p);
  for (int i = 0; i < p.m * p.k; ++i) p.h_a[i] = 0.001f * float(i % 1000);
  for (int i = 0; i < p.k * p.n; ++i) p.h_b[i] = 0.002f * float((i * 7) % 500) - 0.5f;
  for (int i = 0; i < p.m; ++i) p.h_bias[i] = 0.01f * i;

  cudaStream_t stream;
  cublasHandle_t handle;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  CUBLAS_CHECK(cublasCreate(&handle));
  CUBLAS_CHECK(cublasSetStream(handle, stream));

  CUDA_CHECK(cudaMemcpyAsync(p.d_a, p.h_a, sizeof(float) * p.m * p.k, cudaMemcpyHostToDevice, stream));
  CUDA_CHECK(cudaMemcpyAsync(p.d_b, p.h_b, sizeof(float) * p.k * p.n, cudaMemcpyHostToDevice, stream));
  CUDA_CHECK(cudaMemcpyAsync(p.d_bias, p.h_bias, sizeof(float) * p.m, cudaMemcpyHostToDevice, stream));

  const float alpha = 1.f, beta = 0.f;
  CUBLAS_CHECK(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, p.m, p.n, p.k, &alpha, p.d_a, p.m,
                           p.d_b, p.k, &beta, p.d_c, p.m));
  add_bias_relu<<<(p.m * p.n + 255) / 256, 256, 0, stream>>>(p.d_c, p.d_bias, p.m, p.n);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaMemcpyAsync(p.h_c, p.d_c, sizeof(float) * p.m * p.n, cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));

  // spot-check one element on the host
  const int r = 17, c = 33;
  double ref = 0.0;
  for (int kk = 0; kk < p.k; ++kk) ref += double(p.h_a[r + kk * p.m]) * p.h_b[kk + c * p.k];
  ref = std::fmax(ref + p.h_bias[r], 0.0);
  std::printf("C[%d,%d] = %.5f (ref %.5f)\n", r, c, p.h_c[r + c * p.m], ref);

  CUBLAS_CHECK(cublasDestroy(handle));
  CUDA_CHECK(cudaStreamDestroy(stream));
  free_problem(p);
  return 0;
}

#pragma once
#include <cstdio>
#include <cuda_runtime.h>
#include <cublas_v2.h>
#include "check.h"

// Runs a GEMM of the serving shape a few times before the first request, so
// that cuBLAS has loaded its kernels and the first request is not slow.
// The trials are timed on the default stream on scratch buffers.
inline float warm_up_gemm(cublasHandle_t blas, int m, int n, int k) {
  float *A = nullptr, *B = nullptr, *C = nullptr;
  CUDA_CHECK(cudaMalloc(&A, sizeof(float) * m * k));
  CUDA_CHECK(cudaMalloc(&B, sizeof(float) * k * n));
  CUDA_CHECK(cudaMalloc(&C, sizeof(float) * m * n));
  CUDA_CHECK(cudaMemsetAsync(A, 0, sizeof(float) * m * k, 0));
  CUDA_CHECK(cudaMemsetAsync(B, 0, sizeof(float) * k * n, 0));
  CUDA_CHECK(cudaMemsetAsync(C, 0, sizeof(float) * m * n, 0));

  cudaEvent_t start, stop;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  CUBLAS_CHECK(cublasSetStream(blas, 0));

  const float one = 1.0f, zero = 0.0f;
  CUDA_CHECK(cudaEventRecord(start, 0));
  for (int rep = 0; rep < 5; ++rep)
    CUBLAS_CHECK(cublasSgemm(blas, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &one, A, m, B, k,
                             &zero, C, m));
  CUDA_CHECK(cudaEventRecord(stop, 0));
  CUDA_CHECK(cudaEventSynchronize(stop));
  float ms = 0.0f;
  CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));

  CUDA_CHECK(cudaEventDestroy(stop));
  CUDA_CHECK(cudaEventDestroy(start));
  CUDA_CHECK(cudaFree(C));
  CUDA_CHECK(cudaFree(B));
  CUDA_CHECK(cudaFree(A));
  return ms / 5.0f;
}

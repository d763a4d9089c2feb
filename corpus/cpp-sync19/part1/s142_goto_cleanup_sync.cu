// case: near miss: C-style error handling with goto cleanup around a polynomial evaluation kernel; the cleanup block calls cudaDeviceSynchronize before freeing, so no path frees while the kernel may run
// expect: none
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

__global__ void horner(const float* __restrict__ coeffs, int degree, const float* __restrict__ x,
                       float* __restrict__ y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float acc = coeffs[degree];
  for (int d = degree - 1; d >= 0; --d) acc = acc * x[i] + coeffs[d];
  y[i] = acc;
}

static int evaluate_polynomial(const float* coeffs, int degree, const float* x, float* y, int n) {
  int rc = -1;
  float *d_coeffs = NULL, *d_x = NULL, *d_y = NULL;
  const size_t bytes = (size_t)n * sizeof(float);
  const int threads = 256;
  const int blocks = (n + threads - 1) / threads;

  if (cudaMalloc((void**)&d_coeffs, (degree + 1) * sizeof(float)) != cudaSuccess) goto cleanup;
  if (cudaMalloc((void**)&d_x, bytes) != cudaSuccess) goto cleanup;
  if (cudaMalloc((void**)&d_y, bytes) != cudaSuccess) goto cleanup;
  if (cudaMemcpy(d_coeffs, coeffs, (degree + 1) * sizeof(float), cudaMemcpyHostToDevice) != cudaSuccess) goto cleanup;
  if (cudaMemcpy(d_x, x, bytes, cudaMemcpyHostToDevice) != cudaSuccess) goto cleanup;

  horner<<<blocks, threads>>>(d_coeffs, degree, d_x, d_y, n);
  if (cudaGetLastError() != cudaSuccess) goto cleanup;
  if (cudaMemcpy(y, d_y, bytes, cudaMemcpyDeviceToHost) != cudaSuccess) goto cleanup;
  rc = 0;

cleanup:
  cudaDeviceSynchronize();
  cudaFree(d_coeffs);
  cudaFree(d_x);
  cudaFree(d_y);
  return rc;
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? atoi(argv[1]) : (1 << 22);
  const float coeffs[] = {1.f, -0.5f, 0.25f, -0.125f, 0.0625f};
  float* x = (float*)malloc(n * sizeof(float));
  float* y = (float*)malloc(n * sizeof(float));
  if (!x || !y) {
    free(x);
    free(y);
    return 1;
  }
  for (int i = 0; i < n; ++i) x[i] = -1.f + 2.f * i / n;

  const int rc = evaluate_polynomial(coeffs, 4, x, y, n);
  if (rc == 0) printf("p(%.3f) = %.6f\n", x[n / 2], y[n / 2]);
  else fprintf(stderr, "evaluation failed\n");

  free(x);
  free(y);
  return rc == 0 ? 0 : 1;
}

// case: C-style gather benchmark with one goto cleanup path that releases two things with the wrong function: d_lut is the address of a __device__ lookup table (cudaGetSymbolAddress), not an allocation, yet it is passed to cudaFree, and h_idx came from malloc but is passed to cudaFreeHost; the CUDA allocations are all released correctly.
// expect: mismatched_free=2
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#define N (1 << 22)
#define LUT_SIZE 256

__device__ float g_lut[LUT_SIZE];

__global__ void gather_lut(const float* src, const int* idx, const float* lut, float* dst, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) dst[i] = src[idx[i]] * lut[idx[i] & (LUT_SIZE - 1)];
}

int main(void) {
  float *h_src = NULL, *h_dst = NULL, *d_src = NULL, *d_dst = NULL, *d_lut = NULL;
  int *h_idx = NULL, *d_idx = NULL;
  float h_lut[LUT_SIZE];
  cudaError_t err = cudaSuccess;
  int rc = 1;
  double sum = 0.0;
  int i;

  h_idx = (int*)malloc(N * sizeof(int));
  if (!h_idx) goto cleanup;
  err = cudaMallocHost((void**)&h_src, N * sizeof(float));
  if (err != cudaSuccess) goto cleanup;
  err = cudaMallocHost((void**)&h_dst, N * sizeof(float));
  if (err != cudaSuccess) goto cleanup;
  err = cudaMalloc((void**)&d_src, N * sizeof(float));
  if (err != cudaSuccess) goto cleanup;
  err = cudaMalloc((void**)&d_dst, N * sizeof(float));
  if (err != cudaSuccess) goto cleanup;
  err = cudaMalloc((void**)&d_idx, N * sizeof(int));
  if (err != cudaSuccess) goto cleanup;
  err = cudaGetSymbolAddress((void**)&d_lut, g_lut);
  if (err != cudaSuccess) goto cleanup;

  for (i = 0; i < LUT_SIZE; ++i) h_lut[i] = 1.0f + (float)i / LUT_SIZE;
  for (i = 0; i < N; ++i) {
    h_src[i] = (float)i;
    h_idx[i] = (int)(((long long)i * 7919) % N);
  }
  err = cudaMemcpyToSymbol(g_lut, h_lut, sizeof(h_lut));
  if (err != cudaSuccess) goto cleanup;
  err = cudaMemcpy(d_src, h_src, N * sizeof(float), cudaMemcpyHostToDevice);
  if (err != cudaSuccess) goto cleanup;
  err = cudaMemcpy(d_idx, h_idx, N * sizeof(int), cudaMemcpyHostToDevice);
  if (err != cudaSuccess) goto cleanup;

  gather_lut<<<(N + 255) / 256, 256>>>(d_src, d_idx, d_lut, d_dst, N);
  err = cudaGetLastError();
  if (err != cudaSuccess) goto cleanup;
  err = cudaMemcpy(h_dst, d_dst, N * sizeof(float), cudaMemcpyDeviceToHost);
  if (err != cudaSuccess) goto cleanup;

  for (i = 0; i < N; ++i) sum += h_dst[i];
  printf("gathered sum = %.1f\n", sum);
  rc = 0;

cleanup:
  if (err != cudaSuccess) fprintf(stderr, "CUDA error: %s\n", cudaGetErrorString(err));
  cudaDeviceSynchronize();
  cudaFree(d_idx);
  cudaFree(d_dst);
  cudaFree(d_src);
  cudaFree(d_lut);      // EXPECT: mismatched_free
  cudaFreeHost(h_dst);
  cudaFreeHost(h_src);
  cudaFreeHost(h_idx);  // EXPECT: mismatched_free
  return rc;
}

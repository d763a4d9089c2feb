// case: C-style scatter benchmark with a single goto cleanup label reached from every error check: pointers start NULL (cudaFree/cudaFreeHost/free of NULL do nothing), the cleanup first synchronizes the device, and each buffer is released by the function matching its allocator (cudaHostAlloc -> cudaFreeHost, malloc -> free, cudaMalloc -> cudaFree).
// expect: none
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#define N (1 << 22)

__global__ void scatter_add(const float* src, const int* idx, float* dst, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&dst[idx[i]], src[i]);
}

int main(void) {
  float *h_src = NULL, *h_dst = NULL, *d_src = NULL, *d_dst = NULL;
  int *h_idx = NULL, *d_idx = NULL;
  cudaStream_t stream = NULL;
  cudaError_t err = cudaSuccess;
  int rc = 1;
  double sum = 0.0;
  int i;

  h_idx = (int*)malloc(N * sizeof(int));
  if (!h_idx) goto cleanup;
  err = cudaHostAlloc((void**)&h_src, N * sizeof(float), cudaHostAllocDefault);
  if (err != cudaSuccess) goto cleanup;
  err = cudaHostAlloc((void**)&h_dst, N * sizeof(float), cudaHostAllocPortable);
  if (err != cudaSuccess) goto cleanup;
  err = cudaMalloc((void**)&d_src, N * sizeof(float));
  if (err != cudaSuccess) goto cleanup;
  err = cudaMalloc((void**)&d_dst, N * sizeof(float));
  if (err != cudaSuccess) goto cleanup;
  err = cudaMalloc((void**)&d_idx, N * sizeof(int));
  if (err != cudaSuccess) goto cleanup;
  err = cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
  if (err != cudaSuccess) goto cleanup;

  for (i = 0; i < N; ++i) {
    h_src[i] = 1.0f;
    h_idx[i] = i % 1024;
  }
  err = cudaMemcpyAsync(d_src, h_src, N * sizeof(float), cudaMemcpyHostToDevice, stream);
  if (err != cudaSuccess) goto cleanup;
  err = cudaMemcpy(d_idx, h_idx, N * sizeof(int), cudaMemcpyHostToDevice);
  if (err != cudaSuccess) goto cleanup;
  err = cudaDeviceSynchronize();  /* the pageable upload above ran on the legacy stream */
  if (err != cudaSuccess) goto cleanup;
  err = cudaMemsetAsync(d_dst, 0, N * sizeof(float), stream);
  if (err != cudaSuccess) goto cleanup;

  scatter_add<<<(N + 255) / 256, 256, 0, stream>>>(d_src, d_idx, d_dst, N);
  err = cudaGetLastError();
  if (err != cudaSuccess) goto cleanup;
  err = cudaMemcpyAsync(h_dst, d_dst, N * sizeof(float), cudaMemcpyDeviceToHost, stream);
  if (err != cudaSuccess) goto cleanup;
  err = cudaStreamSynchronize(stream);
  if (err != cudaSuccess) goto cleanup;

  for (i = 0; i < 1024; ++i) sum += h_dst[i];
  printf("scattered sum = %.1f (expect %d)\n", sum, N);
  rc = 0;

cleanup:
  if (err != cudaSuccess) fprintf(stderr, "CUDA error: %s\n", cudaGetErrorString(err));
  cudaDeviceSynchronize();
  if (stream) cudaStreamDestroy(stream);
  cudaFree(d_idx);
  cudaFree(d_dst);
  cudaFree(d_src);
  cudaFreeHost(h_dst);
  cudaFreeHost(h_src);
  free(h_idx);
  return rc;
}

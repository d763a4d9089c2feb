// case: a SAXPY timing benchmark with global device pointers that frees the input but leaves the kernel's output buffer unread and unfreed when main returns
// expect: unread_kernel_output=1, device_memory_leak=1
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

#define N (1 << 24)
#define THREADS 256
#define REPEAT 50

float *h_x;
float *d_x;
float *d_y;

__global__ void saxpy(int n, float a, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + 1.0f;
}

int main(void) {
  h_x = (float *)malloc(N * sizeof(float));
  for (int i = 0; i < N; i++) h_x[i] = 1.0f;

  cudaMalloc((void **)&d_x, N * sizeof(float));
  cudaMalloc((void **)&d_y, N * sizeof(float)); // EXPECT: device_memory_leak
  cudaMemcpy(d_x, h_x, N * sizeof(float), cudaMemcpyHostToDevice);

  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);

  cudaEventRecord(start);
  for (int r = 0; r < REPEAT; r++) {
    saxpy<<<(N + THREADS - 1) / THREADS, THREADS>>>(N, 2.0f, d_x, d_y);
  }
  cudaEventRecord(stop);
  cudaEventSynchronize(stop);

  float ms = 0.0f;
  cudaEventElapsedTime(&ms, start, stop);
  printf("saxpy: %.3f ms per launch, %.1f GB/s\n", ms / REPEAT,
         3.0 * N * sizeof(float) * REPEAT / ms / 1e6);

  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  cudaFree(d_x);
  free(h_x);
  return 0; // EXPECT: unread_kernel_output
}

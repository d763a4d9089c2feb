// case: C-style element-wise vector multiply whose kernel writes the device result, which is freed without the copy-back while the host checks its stale result array
// expect: unread_kernel_output=1
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

#define C 8192
#define THREADS 256

float a[C];
float b[C];
float c[C];
float *d_a;
float *d_b;
float *d_c;

__global__ void vector_mult(const float *a, const float *b, float *c) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < C) {
    c[i] = a[i] * b[i];
  }
}

void init() {
  for (int i = 0; i < C; i++) {
    a[i] = (float)i;
    b[i] = 2.0f;
    c[i] = 0.0f;
  }
}

int check() {
  int errors = 0;
  for (int i = 0; i < C; i++) {
    if (c[i] != 2.0f * i) {
      errors++;
    }
  }
  return errors;
}

int main() {
  init();

  cudaMalloc((void **)&d_a, C * sizeof(float));
  cudaMalloc((void **)&d_b, C * sizeof(float));
  cudaMalloc((void **)&d_c, C * sizeof(float));

  cudaMemcpy(d_a, a, C * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(d_b, b, C * sizeof(float), cudaMemcpyHostToDevice);

  vector_mult<<<C / THREADS, THREADS>>>(d_a, d_b, d_c);
  cudaDeviceSynchronize();

  cudaFree(d_a);
  cudaFree(d_b);
  cudaFree(d_c); // EXPECT: unread_kernel_output

  int errors = check();
  printf("vector_mult: %d errors\n", errors);
  return errors != 0;
}

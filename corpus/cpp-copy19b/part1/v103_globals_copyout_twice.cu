// case: DRACC-style C program with global arrays that adds two vectors and copies the result out with twice its size, past the global host array and the device result
// expect: copy_out_of_bounds=1
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

#define C 4096
#define THREADS 256

int a[C];
int b[C];
int c[C];
int *d_a;
int *d_b;
int *d_c;

__global__ void vector_add(const int *a, const int *b, int *c) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < C) {
    c[i] = a[i] + b[i];
  }
}

void init() {
  for (int i = 0; i < C; i++) {
    a[i] = i;
    b[i] = C - i;
    c[i] = 0;
  }
}

int check() {
  int errors = 0;
  for (int i = 0; i < C; i++) {
    if (c[i] != C) {
      errors++;
    }
  }
  return errors;
}

int main() {
  init();

  cudaMalloc((void **)&d_a, C * sizeof(int));
  cudaMalloc((void **)&d_b, C * sizeof(int));
  cudaMalloc((void **)&d_c, C * sizeof(int));

  cudaMemcpy(d_a, a, C * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemcpy(d_b, b, C * sizeof(int), cudaMemcpyHostToDevice);

  vector_add<<<C / THREADS, THREADS>>>(d_a, d_b, d_c);

  cudaMemcpy(c, d_c, 2 * C * sizeof(int), cudaMemcpyDeviceToHost); // EXPECT: copy_out_of_bounds

  cudaFree(d_a);
  cudaFree(d_b);
  cudaFree(d_c);

  int errors = check();
  printf("vector_add: %d errors\n", errors);
  return errors ? 1 : 0;
}

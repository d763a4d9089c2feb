// case: C-style matrix-vector product with global device pointers where the matrix's cudaMalloc is missing, so its upload and the kernel launch both get a null pointer
// expect: unallocated_pointer=2
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

#define C 512
#define THREADS 128

int a[C];
int b[C * C];
int c[C];

int *d_a;
int *d_b;
int *d_c;

__global__ void matrix_vector_mult(const int *a, const int *b, int *c) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < C) {
    int tmp = 0;
    for (int j = 0; j < C; j++) {
      tmp += b[row * C + j] * a[j];
    }
    c[row] = tmp;
  }
}

void init() {
  for (int i = 0; i < C; i++) {
    a[i] = 1;
    c[i] = 0;
    for (int j = 0; j < C; j++) {
      b[i * C + j] = (i == j) ? 2 : 0;
    }
  }
}

int check() {
  int errors = 0;
  for (int i = 0; i < C; i++) {
    if (c[i] != 2) errors++;
  }
  return errors;
}

int main() {
  init();

  cudaMalloc((void **)&d_a, C * sizeof(int));
  cudaMalloc((void **)&d_c, C * sizeof(int));

  cudaMemcpy(d_a, a, C * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemcpy(d_b, b, C * C * sizeof(int), cudaMemcpyHostToDevice); // EXPECT: unallocated_pointer

  matrix_vector_mult<<<C / THREADS, THREADS>>>(d_a, d_b, d_c); // EXPECT: unallocated_pointer

  cudaMemcpy(c, d_c, C * sizeof(int), cudaMemcpyDeviceToHost);

  cudaFree(d_a);
  cudaFree(d_b);
  cudaFree(d_c);

  int errors = check();
  printf("matrix_vector_mult: %d errors\n", errors);
  return errors != 0;
}

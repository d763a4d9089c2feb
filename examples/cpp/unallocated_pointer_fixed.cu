// unallocated_pointer (fixed): the matrix is allocated before it is copied and read.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define N 4096

int* d_a;
int* d_b;

__global__ void add(const int* a, const int* b, int* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

int main() {
    int* h = (int*)malloc(N * sizeof(int));
    for (int i = 0; i < N; ++i) h[i] = i;
    int* d_c;
    cudaMalloc(&d_a, N * sizeof(int));
    cudaMalloc(&d_b, N * sizeof(int));
    cudaMalloc(&d_c, N * sizeof(int));
    cudaMemcpy(d_a, h, N * sizeof(int), cudaMemcpyHostToDevice);
    cudaMemcpy(d_b, h, N * sizeof(int), cudaMemcpyHostToDevice);
    add<<<N / 256, 256>>>(d_a, d_b, d_c, N);
    cudaError_t k = cudaDeviceSynchronize();
    cudaMemcpy(h, d_c, N * sizeof(int), cudaMemcpyDeviceToHost);
    printf("unallocated_pointer_fixed: the kernel ends with %s; c[%d] = %d\n", cudaGetErrorName(k), N - 1, h[N - 1]);
    cudaFree(d_a);
    cudaFree(d_b);
    cudaFree(d_c);
    free(h);
    return 0;
}

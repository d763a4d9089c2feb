// unallocated_pointer (bug): the matrix's cudaMalloc is missing (DRACC 008); its copy and the
// kernel are still there. The program prints what the copy and the kernel return.
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
    cudaMalloc(&d_c, N * sizeof(int));
    cudaMemcpy(d_a, h, N * sizeof(int), cudaMemcpyHostToDevice);
    cudaError_t e = cudaMemcpy(d_b, h, N * sizeof(int), cudaMemcpyHostToDevice);
    printf("  cudaMemcpy(d_b, ..) with d_b never allocated -> %s\n", cudaGetErrorName(e));
    add<<<N / 256, 256>>>(d_a, d_b, d_c, N);
    cudaError_t k = cudaDeviceSynchronize();
    printf("unallocated_pointer_bug: the kernel given d_b ends with %s\n", cudaGetErrorName(k));
    cudaMemcpy(h, d_c, N * sizeof(int), cudaMemcpyDeviceToHost);
    cudaFree(d_a);
    cudaFree(d_c);
    free(h);
    return 0;
}

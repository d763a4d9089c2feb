// uninitialized_device_read (bug): the second operand is allocated but never uploaded
// (DRACC 010). A buffer freed just before leaves its bytes in the allocator's memory; the
// program prints how many sums come out right.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define N (1 << 20)

__global__ void add(const int* a, const int* b, int* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

int main() {
    int* stale;
    cudaMalloc(&stale, N * sizeof(int));
    cudaMemset(stale, 0x11, N * sizeof(int));
    cudaFree(stale);
    int* h = (int*)malloc(N * sizeof(int));
    for (int i = 0; i < N; ++i) h[i] = 1;
    int *d_a, *d_b, *d_c;
    cudaMalloc(&d_a, N * sizeof(int));
    cudaMalloc(&d_b, N * sizeof(int));
    cudaMalloc(&d_c, N * sizeof(int));
    cudaMemcpy(d_a, h, N * sizeof(int), cudaMemcpyHostToDevice);
    add<<<N / 256, 256>>>(d_a, d_b, d_c, N);
    cudaMemcpy(h, d_c, N * sizeof(int), cudaMemcpyDeviceToHost);
    int right = 0;
    for (int i = 0; i < N; ++i) right += h[i] == 2;
    printf("uninitialized_device_read_bug: %d of %d sums are 1 + 1 (c[0] = %d)\n", right, N, h[0]);
    cudaFree(d_a);
    cudaFree(d_b);
    cudaFree(d_c);
    free(h);
    return 0;
}

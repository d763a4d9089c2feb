// copy_out_of_bounds (fixed): the device buffer is allocated for the matrix it receives.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define C 1024

int main() {
    int* h_b = (int*)malloc(C * C * sizeof(int));
    for (int i = 0; i < C * C; ++i) h_b[i] = 1;
    int* d_b;
    int* d_next;
    cudaMalloc(&d_b, C * C * sizeof(int));
    cudaMalloc(&d_next, C * sizeof(int));
    cudaMemset(d_next, 0x7f, C * sizeof(int));
    cudaError_t e = cudaMemcpy(d_b, h_b, C * C * sizeof(int), cudaMemcpyHostToDevice);
    printf("  cudaMemcpy(d_b, h_b, C * C * sizeof(int), ..) -> %s\n", cudaGetErrorName(e));
    int* h_next = (int*)malloc(C * sizeof(int));
    cudaMemcpy(h_next, d_next, C * sizeof(int), cudaMemcpyDeviceToHost);
    int kept = 0;
    for (int i = 0; i < C; ++i) kept += h_next[i] == 0x7f7f7f7f;
    printf("copy_out_of_bounds_fixed: the neighbour keeps %d of %d values\n", kept, C);
    cudaFree(d_b);
    cudaFree(d_next);
    free(h_b);
    free(h_next);
    return 0;
}

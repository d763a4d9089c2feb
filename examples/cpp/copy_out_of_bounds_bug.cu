// copy_out_of_bounds (bug): the weights are copied into a device buffer allocated for a
// vector, with the matrix's byte count (DRACC 009). The program prints what cudaMemcpy returns
// (the runtime refuses a copy past the allocation's end: nothing of the weights arrives) and
// whether the buffer allocated after it (its neighbour) still holds its own data.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define C 1024

int main() {
    int* h_b = (int*)malloc(C * C * sizeof(int));
    for (int i = 0; i < C * C; ++i) h_b[i] = 1;
    int* d_b;
    int* d_next;
    cudaMalloc(&d_b, C * sizeof(int));
    cudaMalloc(&d_next, C * sizeof(int));
    cudaMemset(d_next, 0x7f, C * sizeof(int));
    cudaError_t e = cudaMemcpy(d_b, h_b, C * C * sizeof(int), cudaMemcpyHostToDevice);
    printf("  cudaMemcpy(d_b, h_b, C * C * sizeof(int), ..) into %zu bytes -> %s\n", C * sizeof(int), cudaGetErrorName(e));
    int* h_next = (int*)malloc(C * sizeof(int));
    cudaMemcpy(h_next, d_next, C * sizeof(int), cudaMemcpyDeviceToHost);
    int kept = 0;
    for (int i = 0; i < C; ++i) kept += h_next[i] == 0x7f7f7f7f;
    printf("copy_out_of_bounds_bug: a copy of %d bytes into a %zu-byte buffer: %s; its neighbour keeps %d of %d values\n",
           C * C * (int)sizeof(int), C * sizeof(int), e == cudaSuccess ? "made" : "nothing copied", kept, C);
    cudaFree(d_b);
    cudaFree(d_next);
    free(h_b);
    free(h_next);
    return 0;
}

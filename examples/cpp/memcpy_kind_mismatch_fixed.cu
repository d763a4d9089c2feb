// memcpy_kind_mismatch (fixed): the copy-out states cudaMemcpyDeviceToHost, the direction of its
// pointers.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void fill(int* d, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) d[i] = 7;
}

int main() {
    const int n = 1 << 20;
    int* h_in = (int*)calloc(n, sizeof(int));
    int* h_out = (int*)calloc(n, sizeof(int));
    int* d;
    cudaMalloc(&d, n * sizeof(int));
    cudaMemcpy(d, h_in, n * sizeof(int), cudaMemcpyHostToDevice);
    fill<<<(n + 255) / 256, 256>>>(d, n);
    cudaError_t e = cudaMemcpy(h_out, d, n * sizeof(int), cudaMemcpyDeviceToHost);
    printf("  cudaMemcpy(h_out, d, .., cudaMemcpyDeviceToHost) -> %s\n", cudaGetErrorName(e));
    int sevens = 0;
    for (int i = 0; i < n; ++i) sevens += h_out[i] == 7;
    printf("memcpy_kind_mismatch_fixed: the host buffer holds %d of %d device values (first: %d)\n", sevens, n, h_out[0]);
    cudaFree(d);
    free(h_in);
    free(h_out);
    return 0;
}

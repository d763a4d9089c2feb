// unread_kernel_output (bug): the result's copy back is missing (DRACC 012); the host checks
// its own array, which still holds what it held before the kernel ran.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define N (1 << 20)

__global__ void square(const int* in, int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i] * in[i];
}

int main() {
    int* h_in = (int*)malloc(N * sizeof(int));
    int* h_out = (int*)calloc(N, sizeof(int));
    for (int i = 0; i < N; ++i) h_in[i] = 3;
    int *d_in, *d_out;
    cudaMalloc(&d_in, N * sizeof(int));
    cudaMalloc(&d_out, N * sizeof(int));
    cudaMemcpy(d_in, h_in, N * sizeof(int), cudaMemcpyHostToDevice);
    square<<<N / 256, 256>>>(d_in, d_out, N);
    cudaDeviceSynchronize();
    int right = 0;
    for (int i = 0; i < N; ++i) right += h_out[i] == 9;
    printf("unread_kernel_output_bug: the host sees %d of %d results (h_out[0] = %d)\n", right, N, h_out[0]);
    cudaFree(d_in);
    cudaFree(d_out);
    free(h_in);
    free(h_out);
    return 0;
}

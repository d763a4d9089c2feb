// case: prefix-sum benchmark whose host result pointer stays NULL (its malloc was forgotten) and is handed to the device-to-host cudaMemcpy as destination
// expect: unallocated_pointer=1
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

#define N 1024

__global__ void inclusive_scan_block(const int *in, int *out, int n)
{
    __shared__ int buf[N];
    int t = threadIdx.x;
    buf[t] = (t < n) ? in[t] : 0;
    __syncthreads();
    for (int off = 1; off < n; off <<= 1) {
        int v = (t >= off) ? buf[t - off] : 0;
        __syncthreads();
        buf[t] += v;
        __syncthreads();
    }
    if (t < n) out[t] = buf[t];
}

int main(void)
{
    int *h_input = (int *)malloc(N * sizeof(int));
    int *h_result = NULL;
    int *d_input, *d_output;

    for (int i = 0; i < N; ++i) h_input[i] = 1;

    cudaMalloc((void **)&d_input, N * sizeof(int));
    cudaMalloc((void **)&d_output, N * sizeof(int));
    cudaMemcpy(d_input, h_input, N * sizeof(int), cudaMemcpyHostToDevice);

    cudaEvent_t start, stop;
    cudaEventCreate(&start);
    cudaEventCreate(&stop);
    cudaEventRecord(start);
    inclusive_scan_block<<<1, N>>>(d_input, d_output, N);
    cudaEventRecord(stop);
    cudaEventSynchronize(stop);

    float ms = 0.0f;
    cudaEventElapsedTime(&ms, start, stop);

    cudaMemcpy(h_result, d_output, N * sizeof(int), cudaMemcpyDeviceToHost); // EXPECT: unallocated_pointer
    printf("scan of %d ones took %.3f ms\n", N, ms);

    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    cudaFree(d_input);
    cudaFree(d_output);
    free(h_input);
    return 0;
}

// case: a block-wise inclusive scan kernel that first copies its input into the output buffer and then scans in place, so the freshly allocated output is written before the kernel reads it.
// expect: none
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(call) { const cudaError_t error = call; if (error != cudaSuccess) { \
    printf("Error: %s:%d, code:%d, reason: %s\n", __FILE__, __LINE__, error, cudaGetErrorString(error)); exit(1); } }

#define BLOCK 1024
#define NUM_BLOCKS 512
#define LEN (BLOCK * NUM_BLOCKS)

__global__ void block_scan_inplace(const int* in, int* out)
{
    int base = blockIdx.x * BLOCK;
    int t = threadIdx.x;
    out[base + t] = in[base + t];
    __syncthreads();
    for (int offset = 1; offset < BLOCK; offset <<= 1) {
        int v = (t >= offset) ? out[base + t - offset] : 0;
        __syncthreads();
        out[base + t] += v;
        __syncthreads();
    }
}

int main(void)
{
    int* h_in = (int*)malloc(LEN * sizeof(int));
    int* h_out = (int*)malloc(LEN * sizeof(int));
    for (int i = 0; i < LEN; ++i) h_in[i] = 1;

    int *d_in, *d_out;
    CHECK(cudaMalloc((void**)&d_in, LEN * sizeof(int)));
    CHECK(cudaMalloc((void**)&d_out, LEN * sizeof(int)));
    CHECK(cudaMemcpy(d_in, h_in, LEN * sizeof(int), cudaMemcpyHostToDevice));

    block_scan_inplace<<<NUM_BLOCKS, BLOCK>>>(d_in, d_out);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(h_out, d_out, LEN * sizeof(int), cudaMemcpyDeviceToHost));

    int bad = 0;
    for (int i = 0; i < LEN; ++i)
        if (h_out[i] != (i % BLOCK) + 1) ++bad;
    printf("%s (%d bad)\n", bad ? "FAILED" : "PASSED", bad);

    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_out));
    free(h_in);
    free(h_out);
    return bad != 0;
}

// case: C-style 1D stencil with goto cleanup: the result buffer was allocated write-combined and is read by the verification loop, and the cleanup block releases the cudaMallocHost input with free() instead of cudaFreeHost.
// expect: write_combined_host_read=1, mismatched_free=1
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <cuda_runtime.h>

#define N        (1 << 22)
#define RADIUS   4
#define BLOCK    256
#define TRY(x)   do { if ((err = (x)) != cudaSuccess) goto cleanup; } while (0)

__global__ void stencil_1d(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < RADIUS || i >= n - RADIUS) return;
    float s = 0.f;
    for (int k = -RADIUS; k <= RADIUS; k++) s += in[i + k];
    out[i] = s / (2 * RADIUS + 1);
}

static void stencil_gold(const float *in, float *out, int n)
{
    for (int i = RADIUS; i < n - RADIUS; i++) {
        float s = 0.f;
        for (int k = -RADIUS; k <= RADIUS; k++) s += in[i + k];
        out[i] = s / (2 * RADIUS + 1);
    }
}

int main(void)
{
    cudaError_t err = cudaSuccess;
    float *h_in = NULL, *h_out = NULL, *gold = NULL;
    float *d_in = NULL, *d_out = NULL;
    size_t bytes = N * sizeof(float);
    int i, bad = 0;

    TRY(cudaMallocHost((void **)&h_in, bytes));
    TRY(cudaHostAlloc((void **)&h_out, bytes, cudaHostAllocWriteCombined));
    gold = (float *)malloc(bytes);
    TRY(cudaMalloc((void **)&d_in, bytes));
    TRY(cudaMalloc((void **)&d_out, bytes));

    for (i = 0; i < N; i++) h_in[i] = sinf(i * 0.01f);
    stencil_gold(h_in, gold, N);

    TRY(cudaMemcpy(d_in, h_in, bytes, cudaMemcpyHostToDevice));
    TRY(cudaMemset(d_out, 0, bytes));
    stencil_1d<<<(N + BLOCK - 1) / BLOCK, BLOCK>>>(d_in, d_out, N);
    TRY(cudaGetLastError());
    TRY(cudaMemcpy(h_out, d_out, bytes, cudaMemcpyDeviceToHost));

    for (i = RADIUS; i < N - RADIUS; i++)
        if (fabsf(h_out[i] - gold[i]) > 1e-5f) bad++;
    printf("stencil: %d mismatches\n", bad);

cleanup:
    if (err != cudaSuccess) fprintf(stderr, "CUDA error: %s\n", cudaGetErrorString(err));
    if (d_out) cudaFree(d_out);
    if (d_in) cudaFree(d_in);
    free(gold);
    if (h_out) cudaFreeHost(h_out);
    free(h_in);
    return (err != cudaSuccess || bad) ? 1 : 0;
}

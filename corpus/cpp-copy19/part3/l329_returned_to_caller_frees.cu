// case: a helper allocates and uploads a device array and returns the pointer; main frees every array it gets back, and the helper frees its allocation itself when the upload fails
// expect: none
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

#define NROWS 8192
#define NCOLS 1024

static float *to_device(const float *host, size_t count)
{
    float *d = NULL;
    if (cudaMalloc((void **)&d, count * sizeof(float)) != cudaSuccess)
        return NULL;
    if (cudaMemcpy(d, host, count * sizeof(float), cudaMemcpyHostToDevice) != cudaSuccess) {
        cudaFree(d);
        return NULL;
    }
    return d;
}

__global__ void row_dot(const float *M, const float *v, float *out, int rows, int cols)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    float acc = 0.0f;
    for (int c = 0; c < cols; c++) acc += M[(size_t)r * cols + c] * v[c];
    out[r] = acc;
}

int main(void)
{
    float *h_M = (float *)malloc(sizeof(float) * NROWS * NCOLS);
    float *h_v = (float *)malloc(sizeof(float) * NCOLS);
    float *h_out = (float *)malloc(sizeof(float) * NROWS);
    for (size_t i = 0; i < (size_t)NROWS * NCOLS; i++) h_M[i] = (float)(i % 3);
    for (int i = 0; i < NCOLS; i++) h_v[i] = 1.0f;

    float *d_M = to_device(h_M, (size_t)NROWS * NCOLS);
    float *d_v = to_device(h_v, NCOLS);
    float *d_out = NULL;
    cudaMalloc((void **)&d_out, sizeof(float) * NROWS);

    if (d_M && d_v && d_out) {
        row_dot<<<(NROWS + 127) / 128, 128>>>(d_M, d_v, d_out, NROWS, NCOLS);
        cudaMemcpy(h_out, d_out, sizeof(float) * NROWS, cudaMemcpyDeviceToHost);
        printf("out[0] = %f, out[%d] = %f\n", h_out[0], NROWS - 1, h_out[NROWS - 1]);
    } else {
        fprintf(stderr, "device setup failed\n");
    }

    cudaFree(d_M);
    cudaFree(d_v);
    cudaFree(d_out);
    free(h_M);
    free(h_v);
    free(h_out);
    return 0;
}

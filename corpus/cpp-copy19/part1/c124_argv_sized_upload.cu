// case: vector scaling tool with device buffers of MAX_N floats whose copies use n read from argv: the byte count is a run-time value, an unknown
// expect: none
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

#define MAX_N (1 << 24)

__global__ void scale(float *v, float a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) v[i] *= a;
}

static void die(const char *msg, cudaError_t e)
{
    fprintf(stderr, "%s: %s\n", msg, cudaGetErrorString(e));
    exit(EXIT_FAILURE);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s N [factor]\n", argv[0]);
        return 1;
    }
    int n = atoi(argv[1]);
    float factor = argc > 2 ? (float)atof(argv[2]) : 2.0f;
    if (n <= 0) n = 1;

    float *h = (float *)malloc((size_t)n * sizeof(float));
    for (int i = 0; i < n; ++i) h[i] = (float)i;

    float *d_v;
    cudaError_t e = cudaMalloc(&d_v, MAX_N * sizeof(float));
    if (e != cudaSuccess) die("cudaMalloc", e);

    e = cudaMemcpy(d_v, h, (size_t)n * sizeof(float), cudaMemcpyHostToDevice);
    if (e != cudaSuccess) die("upload", e);

    scale<<<(n + 255) / 256, 256>>>(d_v, factor, n);
    e = cudaGetLastError();
    if (e != cudaSuccess) die("launch", e);

    e = cudaMemcpy(h, d_v, (size_t)n * sizeof(float), cudaMemcpyDeviceToHost);
    if (e != cudaSuccess) die("download", e);

    printf("h[n-1] = %f\n", h[n - 1]);
    cudaFree(d_v);
    free(h);
    return 0;
}

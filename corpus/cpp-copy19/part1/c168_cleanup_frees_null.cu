// case: C-style optical-flow setup with a single cleanup routine that cudaFree()s and free()s every pointer, including the optional pyramid levels that stay NULL in this configuration (freeing null is legal, not a use)
// expect: none
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

#define W 640
#define H 480
#define USE_PYRAMID 0

static float *d_prev = NULL, *d_curr = NULL, *d_flow = NULL;
static float *d_level1 = NULL, *d_level2 = NULL;
static float *h_frame = NULL, *h_flow = NULL;

__global__ void temporal_gradient(const float *prev, const float *curr, float *flow, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) flow[i] = curr[i] - prev[i];
}

static void cleanup(void)
{
    cudaFree(d_prev);
    cudaFree(d_curr);
    cudaFree(d_flow);
    cudaFree(d_level1);
    cudaFree(d_level2);
    free(h_frame);
    free(h_flow);
}

int main(void)
{
    const int n = W * H;
    h_frame = (float *)malloc(n * sizeof(float));
    h_flow = (float *)malloc(n * sizeof(float));
    if (!h_frame || !h_flow) {
        cleanup();
        return 1;
    }
    for (int i = 0; i < n; ++i) h_frame[i] = (float)((i % W) ^ (i / W)) / 255.0f;

    if (cudaMalloc((void **)&d_prev, n * sizeof(float)) != cudaSuccess ||
        cudaMalloc((void **)&d_curr, n * sizeof(float)) != cudaSuccess ||
        cudaMalloc((void **)&d_flow, n * sizeof(float)) != cudaSuccess) {
        fprintf(stderr, "out of device memory\n");
        cleanup();
        return 1;
    }
    if (USE_PYRAMID) {
        cudaMalloc((void **)&d_level1, (n / 4) * sizeof(float));
        cudaMalloc((void **)&d_level2, (n / 16) * sizeof(float));
    }

    cudaMemcpy(d_prev, h_frame, n * sizeof(float), cudaMemcpyHostToDevice);
    for (int i = 0; i < n; ++i) h_frame[i] *= 1.05f;
    cudaMemcpy(d_curr, h_frame, n * sizeof(float), cudaMemcpyHostToDevice);

    temporal_gradient<<<(n + 255) / 256, 256>>>(d_prev, d_curr, d_flow, n);
    cudaMemcpy(h_flow, d_flow, n * sizeof(float), cudaMemcpyDeviceToHost);
    printf("dI/dt at 1000: %f\n", h_flow[1000]);

    cleanup();
    return 0;
}

// case: a C-style helper allocates three device buffers and on any failure jumps to a single cleanup label that frees all of them (cudaFree of a null pointer is a no-op), so no path loses an allocation
// expect: none
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

__global__ void dot_partial(const float* a, const float* b, float* partial, int n) {
    __shared__ float cache[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    cache[threadIdx.x] = i < n ? a[i] * b[i] : 0.f;
    __syncthreads();
    for (int s = 128; s > 0; s >>= 1) {
        if (threadIdx.x < s) cache[threadIdx.x] += cache[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) partial[blockIdx.x] = cache[0];
}

static cudaError_t gpu_dot(const float* ha, const float* hb, int n, double* result) {
    cudaError_t err;
    float *d_a = NULL, *d_b = NULL, *d_partial = NULL;
    float* h_partial = NULL;
    const int blocks = (n + 255) / 256;

    err = cudaMalloc((void**)&d_a, n * sizeof(float));
    if (err != cudaSuccess) goto cleanup;
    err = cudaMalloc((void**)&d_b, n * sizeof(float));
    if (err != cudaSuccess) goto cleanup;
    err = cudaMalloc((void**)&d_partial, blocks * sizeof(float));
    if (err != cudaSuccess) goto cleanup;

    err = cudaMemcpy(d_a, ha, n * sizeof(float), cudaMemcpyHostToDevice);
    if (err != cudaSuccess) goto cleanup;
    err = cudaMemcpy(d_b, hb, n * sizeof(float), cudaMemcpyHostToDevice);
    if (err != cudaSuccess) goto cleanup;

    dot_partial<<<blocks, 256>>>(d_a, d_b, d_partial, n);
    err = cudaGetLastError();
    if (err != cudaSuccess) goto cleanup;

    h_partial = (float*)malloc(blocks * sizeof(float));
    err = cudaMemcpy(h_partial, d_partial, blocks * sizeof(float), cudaMemcpyDeviceToHost);
    if (err != cudaSuccess) goto cleanup;
    *result = 0.0;
    for (int b = 0; b < blocks; ++b) *result += h_partial[b];

cleanup:
    free(h_partial);
    cudaFree(d_partial);
    cudaFree(d_b);
    cudaFree(d_a);
    return err;
}

int main(void) {
    const int n = 1 << 22;
    float* a = (float*)malloc(n * sizeof(float));
    float* b = (float*)malloc(n * sizeof(float));
    for (int i = 0; i < n; ++i) { a[i] = 0.5f; b[i] = 2.0f; }
    double r = 0.0;
    cudaError_t err = gpu_dot(a, b, n, &r);
    free(b);
    free(a);
    if (err != cudaSuccess) {
        fprintf(stderr, "gpu_dot: %s\n", cudaGetErrorString(err));
        return 1;
    }
    printf("dot = %.1f (expected %d)\n", r, n);
    return 0;
}

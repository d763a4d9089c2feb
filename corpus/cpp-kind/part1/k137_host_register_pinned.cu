// case: a log-scaling job page-locks a malloc buffer with cudaHostRegister and also uses cudaMallocHost memory; async copies name the pinned buffers as host sides correctly and a HostToHost copy moves data between the two host buffers.
// expect: none
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void logScale(float* v, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) v[i] = log1pf(v[i]);
}

int main() {
    const int n = 8 << 20;
    const size_t bytes = n * sizeof(float);

    float* raw = (float*)malloc(bytes);
    for (int i = 0; i < n; ++i) raw[i] = (float)(i & 1023);
    cudaHostRegister(raw, bytes, cudaHostRegisterDefault);

    float* result;
    cudaMallocHost(&result, bytes);
    float* d_v;
    cudaMalloc(&d_v, bytes);

    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    cudaMemcpyAsync(d_v, raw, bytes, cudaMemcpyHostToDevice, s);
    logScale<<<(n + 255) / 256, 256, 0, s>>>(d_v, n);
    cudaMemcpyAsync(result, d_v, bytes, cudaMemcpyDeviceToHost, s);
    cudaStreamSynchronize(s);

    // keep a copy of the scaled data in the registered buffer for the next job
    cudaMemcpy(raw, result, bytes, cudaMemcpyHostToHost);
    printf("raw[1023] = %f\n", raw[1023]);

    cudaStreamDestroy(s);
    cudaFree(d_v);
    cudaFreeHost(result);
    cudaHostUnregister(raw);
    free(raw);
    return 0;
}

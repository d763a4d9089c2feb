// case: a build-configuration header defines STAGING_USE_PINNED and STAGING_SYNC_BEFORE_READ, so the default build allocates pinned staging and synchronizes before the host reads; the pageable, unsynchronized arms are other builds
// expect: none
#include "build_config.h"
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(call) do { cudaError_t e = (call); if (e != cudaSuccess) { \
    fprintf(stderr, "%s\n", cudaGetErrorString(e)); exit(1); } } while (0)

__global__ void gain(float* samples, int n, float g) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) samples[i] *= g;
}

static float* staging_alloc(size_t bytes) {
    float* p = nullptr;
#if STAGING_USE_PINNED
    CUDA_CHECK(cudaMallocHost(&p, bytes));
#else
    p = static_cast<float*>(malloc(bytes));
#endif
    return p;
}

static void staging_free(float* p) {
#if STAGING_USE_PINNED
    CUDA_CHECK(cudaFreeHost(p));
#else
    free(p);
#endif
}

STAGING_EXPORT int process_audio(int n, float g) {
    const size_t bytes = n * sizeof(float);
    float* host = staging_alloc(bytes);
    float* dev = nullptr;
    CUDA_CHECK(cudaMalloc(&dev, bytes));
    for (int i = 0; i < n; ++i) host[i] = (i % 480 < 240) ? 0.5f : -0.5f;

    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CUDA_CHECK(cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, s));
    gain<<<(n + 255) / 256, 256, 0, s>>>(dev, n, g);
    CUDA_CHECK(cudaMemcpyAsync(host, dev, bytes, cudaMemcpyDeviceToHost, s));
#ifdef STAGING_SYNC_BEFORE_READ
    CUDA_CHECK(cudaStreamSynchronize(s));
#endif

    int clipped = 0;
    for (int i = 0; i < n; ++i) clipped += host[i] > 1.0f || host[i] < -1.0f;

#ifndef STAGING_SYNC_BEFORE_READ
    CUDA_CHECK(cudaStreamSynchronize(s));
#endif
    CUDA_CHECK(cudaStreamDestroy(s));
    CUDA_CHECK(cudaFree(dev));
    staging_free(host);
    return clipped;
}

int main() {
    int clipped = process_audio(48000 * 60, 2.5f);
    printf("clipped samples: %d\n", clipped);
    return 0;
}

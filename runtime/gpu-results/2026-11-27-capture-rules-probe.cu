#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
__global__ void k(float* x) { x[threadIdx.x] += 1.0f; }
typedef cudaError_t (*Op)(float* d, float* hp, float* hq, cudaStream_t s);
static cudaError_t h2d_pinned(float* d, float* hp, float*, cudaStream_t) { return cudaMemcpy(d, hp, 1 << 20, cudaMemcpyHostToDevice); }
static cudaError_t h2d_pageable(float* d, float*, float* hq, cudaStream_t) { return cudaMemcpy(d, hq, 1 << 20, cudaMemcpyHostToDevice); }
static cudaError_t d2h_pinned(float* d, float* hp, float*, cudaStream_t) { return cudaMemcpy(hp, d, 1 << 20, cudaMemcpyDeviceToHost); }
static cudaError_t d2h_pageable(float* d, float*, float* hq, cudaStream_t) { return cudaMemcpy(hq, d, 1 << 20, cudaMemcpyDeviceToHost); }
static cudaError_t memset_sync(float* d, float*, float*, cudaStream_t) { return cudaMemset(d, 0, 1 << 20); }
static cudaError_t malloc_(float*, float*, float*, cudaStream_t) { float* p; cudaError_t e = cudaMalloc(&p, 64); return e; }
static cudaError_t mallochost_(float*, float*, float*, cudaStream_t) { float* p; return cudaMallocHost(&p, 64); }
static cudaError_t free_(float*, float*, float*, cudaStream_t) { static float* p = nullptr; return cudaFree(p); }
static cudaError_t kernel_legacy(float* d, float*, float*, cudaStream_t) { k<<<1, 32>>>(d); return cudaGetLastError(); }
static cudaError_t async_legacy(float* d, float* hp, float*, cudaStream_t) { return cudaMemcpyAsync(d, hp, 1 << 20, cudaMemcpyHostToDevice, 0); }
static cudaError_t devsync(float*, float*, float*, cudaStream_t) { return cudaDeviceSynchronize(); }
int main() {
    struct { const char* name; Op op; } ops[] = {
        {"cudaMemcpy H2D pinned", h2d_pinned}, {"cudaMemcpy H2D pageable", h2d_pageable},
        {"cudaMemcpy D2H pinned", d2h_pinned}, {"cudaMemcpy D2H pageable", d2h_pageable},
        {"cudaMemset", memset_sync}, {"cudaMalloc", malloc_}, {"cudaMallocHost", mallochost_},
        {"cudaFree(nullptr)", free_}, {"kernel on legacy", kernel_legacy}, {"cudaMemcpyAsync on 0", async_legacy},
        {"cudaDeviceSynchronize", devsync}};
    float *d, *hp, *hq = (float*)malloc(1 << 20);
    cudaMalloc(&d, 1 << 20); cudaMallocHost(&hp, 1 << 20);
    const char* modes[] = {"global", "threadlocal", "relaxed"};
    cudaStreamCaptureMode m[] = {cudaStreamCaptureModeGlobal, cudaStreamCaptureModeThreadLocal, cudaStreamCaptureModeRelaxed};
    for (int blocking = 0; blocking < 2; ++blocking)
    for (int mi = 0; mi < 3; ++mi)
    for (auto& o : ops) {
        cudaStream_t s;
        if (blocking) cudaStreamCreate(&s); else cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
        cudaStreamBeginCapture(s, m[mi]);
        k<<<1, 32, 0, s>>>(d);
        cudaError_t e = o.op(d, hp, hq, s);
        cudaGraph_t g = nullptr;
        cudaError_t end = cudaStreamEndCapture(s, &g);
        printf("%-9s %-11s %-26s call=%-40s end=%s\n", blocking ? "blocking" : "nonblock", modes[mi], o.name, cudaGetErrorName(e), cudaGetErrorName(end));
        if (g) cudaGraphDestroy(g);
        cudaGetLastError();
        cudaDeviceSynchronize(); cudaGetLastError();
        cudaStreamDestroy(s);
    }
    return 0;
}

// case: time-series downsampler on cudaMallocManaged buffers: a prefetch, the bucketing kernel on one stream and an unrelated cleanup kernel on another, then cudaDeviceSynchronize before the host reads the managed output and cudaFree releases it: near-miss, all kernels are finished before any host access
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstdint>

#define CUDA_CHECK(x)                                                          \
    do {                                                                       \
        cudaError_t e_ = (x);                                                  \
        if (e_ != cudaSuccess) {                                               \
            std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_));       \
            std::exit(1);                                                      \
        }                                                                      \
    } while (0)

__global__ void downsample_mean(const float* series, size_t n, int factor, float* out) {
    size_t b = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (b * factor >= n) return;
    float acc = 0.f;
    int cnt = 0;
    for (int k = 0; k < factor && b * factor + k < n; ++k, ++cnt) acc += series[b * factor + k];
    out[b] = acc / cnt;
}

__global__ void clear_scratch(uint32_t* scratch, size_t n) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) scratch[i] = 0;
}

int main() {
    const size_t n = 1u << 24;
    const int factor = 64;
    const size_t buckets = (n + factor - 1) / factor;
    int dev = 0;
    CUDA_CHECK(cudaGetDevice(&dev));

    cudaStream_t work, housekeeping;
    CUDA_CHECK(cudaStreamCreateWithFlags(&work, cudaStreamNonBlocking));
    CUDA_CHECK(cudaStreamCreateWithFlags(&housekeeping, cudaStreamNonBlocking));

    float* series = nullptr;
    float* out = nullptr;
    uint32_t* scratch = nullptr;
    CUDA_CHECK(cudaMallocManaged(&series, n * sizeof(float)));
    CUDA_CHECK(cudaMallocManaged(&out, buckets * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&scratch, n * sizeof(uint32_t)));

    for (size_t i = 0; i < n; ++i) series[i] = (float)(i % 1000) * 0.001f;
    CUDA_CHECK(cudaMemPrefetchAsync(series, n * sizeof(float), dev, work));

    downsample_mean<<<(unsigned)((buckets + 255) / 256), 256, 0, work>>>(series, n, factor, out);
    clear_scratch<<<(unsigned)((n + 255) / 256), 256, 0, housekeeping>>>(scratch, n);
    CUDA_CHECK(cudaDeviceSynchronize());

    double total = 0.0;
    for (size_t b = 0; b < buckets; ++b) total += out[b];
    std::printf("mean of means %f\n", total / buckets);

    CUDA_CHECK(cudaFree(scratch));
    CUDA_CHECK(cudaFree(out));
    CUDA_CHECK(cudaFree(series));
    CUDA_CHECK(cudaStreamDestroy(housekeeping));
    CUDA_CHECK(cudaStreamDestroy(work));
    return 0;
}

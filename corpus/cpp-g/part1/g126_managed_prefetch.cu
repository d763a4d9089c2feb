// case: Managed arrays are initialized on the host before any launch, prefetched to the device and back with cudaMemPrefetchAsync on the kernel's stream, and read by the host only after cudaStreamSynchronize.
// expect: none
#include <cstdio>
#include <cuda_runtime.h>

#define CHECK_CUDA(x) do { cudaError_t st = (x); if (st != cudaSuccess) { \
    std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(st)); return 1; } } while (0)

__global__ void axpby(float a, const float* x, float b, float* y, size_t n) {
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
        y[i] = a * x[i] + b * y[i];
}

static cudaError_t prefetch(const void* p, size_t bytes, int device, cudaStream_t s) {
#if CUDART_VERSION >= 13000
    cudaMemLocation loc = {};
    loc.type = (device == cudaCpuDeviceId) ? cudaMemLocationTypeHost : cudaMemLocationTypeDevice;
    loc.id = (device == cudaCpuDeviceId) ? 0 : device;
    return cudaMemPrefetchAsync(p, bytes, loc, 0, s);
#else
    return cudaMemPrefetchAsync(p, bytes, device, s);
#endif
}

int main() {
    const size_t n = size_t(1) << 24;
    int device = 0;
    float *x = nullptr, *y = nullptr;
    cudaStream_t s;

    CHECK_CUDA(cudaGetDevice(&device));
    CHECK_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CHECK_CUDA(cudaMallocManaged(&x, n * sizeof(float)));
    CHECK_CUDA(cudaMallocManaged(&y, n * sizeof(float)));

    for (size_t i = 0; i < n; ++i) { x[i] = 1.0f; y[i] = float(i & 7); }

    CHECK_CUDA(prefetch(x, n * sizeof(float), device, s));
    CHECK_CUDA(prefetch(y, n * sizeof(float), device, s));
    axpby<<<1024, 256, 0, s>>>(2.0f, x, 0.5f, y, n);
    CHECK_CUDA(cudaGetLastError());
    CHECK_CUDA(prefetch(y, n * sizeof(float), cudaCpuDeviceId, s));
    CHECK_CUDA(cudaStreamSynchronize(s));

    double sum = 0.0;
    for (size_t i = 0; i < n; ++i) sum += y[i];
    std::printf("sum(y) = %.1f\n", sum);

    CHECK_CUDA(cudaFree(y));
    CHECK_CUDA(cudaFree(x));
    CHECK_CUDA(cudaStreamDestroy(s));
    return 0;
}

// case: managed-memory vector add with prefetches to the device and back; the host waits on an event recorded after the return prefetch before checking the result, so the reads are ordered
// expect: none
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#define CUDA_CALL(f) do { cudaError_t e = (f); if (e != cudaSuccess) { \
    fprintf(stderr, "%s (%s:%d)\n", cudaGetErrorString(e), __FILE__, __LINE__); exit(1); } } while (0)

__global__ void vadd(const float* a, const float* b, float* c, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        c[i] = a[i] + b[i];
}

int main() {
    int dev = 0;
    CUDA_CALL(cudaSetDevice(dev));
    const int n = 1 << 24;
    const size_t bytes = n * sizeof(float);

    float *a, *b, *c;
    CUDA_CALL(cudaMallocManaged(&a, bytes));
    CUDA_CALL(cudaMallocManaged(&b, bytes));
    CUDA_CALL(cudaMallocManaged(&c, bytes));
    for (int i = 0; i < n; ++i) { a[i] = std::sin(i) * std::sin(i); b[i] = std::cos(i) * std::cos(i); }

    cudaStream_t s;
    cudaEvent_t back_on_host;
    CUDA_CALL(cudaStreamCreate(&s));
    CUDA_CALL(cudaEventCreate(&back_on_host));

    CUDA_CALL(cudaMemPrefetchAsync(a, bytes, dev, s));
    CUDA_CALL(cudaMemPrefetchAsync(b, bytes, dev, s));
    CUDA_CALL(cudaMemPrefetchAsync(c, bytes, dev, s));
    vadd<<<1024, 256, 0, s>>>(a, b, c, n);
    CUDA_CALL(cudaGetLastError());
    CUDA_CALL(cudaMemPrefetchAsync(c, bytes, cudaCpuDeviceId, s));
    CUDA_CALL(cudaEventRecord(back_on_host, s));
    CUDA_CALL(cudaEventSynchronize(back_on_host));

    double max_err = 0.0;
    for (int i = 0; i < n; ++i) max_err = std::fmax(max_err, std::fabs(c[i] - 1.0f));
    printf("max error %g\n", max_err);

    CUDA_CALL(cudaEventDestroy(back_on_host));
    CUDA_CALL(cudaStreamDestroy(s));
    CUDA_CALL(cudaFree(c));
    CUDA_CALL(cudaFree(b));
    CUDA_CALL(cudaFree(a));
    return 0;
}

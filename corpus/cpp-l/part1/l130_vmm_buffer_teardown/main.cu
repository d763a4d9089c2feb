// case: a histogram tool keeps its bins in a header-defined RAII VmmBuffer; the wrapper's destructor releases the handle (legal while mapped) but then calls cuMemAddressFree before cuMemUnmap, freeing a reserved range that is still mapped (the failure is unchecked and the range leaks).
// expect: vmm_lifecycle=1
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#include "vmm_buffer.cuh"

constexpr int kBins = 4096;

__global__ void histogram(const unsigned* keys, size_t n, unsigned* bins) {
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
        atomicAdd(&bins[keys[i] % kBins], 1u);
}

int main() {
    VMM_CHECK(cuInit(0));
    CUdevice dev;
    VMM_CHECK(cuDeviceGet(&dev, 0));
    CUcontext ctx;
    VMM_CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    VMM_CHECK(cuCtxSetCurrent(ctx));

    const size_t n = size_t(1) << 24;
    unsigned* h_keys = nullptr;
    unsigned* d_keys = nullptr;
    if (cudaMallocHost(&h_keys, n * sizeof(unsigned)) != cudaSuccess) return 1;
    if (cudaMalloc(&d_keys, n * sizeof(unsigned)) != cudaSuccess) return 1;
    for (size_t i = 0; i < n; ++i) h_keys[i] = unsigned(i * 2654435761u);

    unsigned h_bins[kBins];
    cudaStream_t s;
    if (cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) != cudaSuccess) return 1;
    {
        VmmBuffer bins(int(dev), kBins * sizeof(unsigned));
        VMM_CHECK(cuMemsetD32Async(bins.get(), 0, kBins, s));
        cudaMemcpyAsync(d_keys, h_keys, n * sizeof(unsigned), cudaMemcpyHostToDevice, s);
        histogram<<<256, 256, 0, s>>>(d_keys, n, reinterpret_cast<unsigned*>(bins.get()));
        cudaMemcpyAsync(h_bins, reinterpret_cast<const void*>(bins.get()), sizeof(h_bins), cudaMemcpyDeviceToHost, s);
        cudaStreamSynchronize(s);
    }
    unsigned long long total = 0;
    for (int b = 0; b < kBins; ++b) total += h_bins[b];
    printf("binned %llu keys (expected %zu)\n", total, n);

    cudaStreamDestroy(s);
    cudaFree(d_keys);
    cudaFreeHost(h_keys);
    VMM_CHECK(cuDevicePrimaryCtxRelease(dev));
    return 0;
}

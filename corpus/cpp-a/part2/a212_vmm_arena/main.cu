// case: RAII VMM arena (reserve, create, map, cuMemSetAccess in the constructor; stream sync, unmap, release, address free in the destructor) used by a radix-histogram kernel: near-miss, the whole lifecycle is in the documented order
// expect: none
#include "vmm_arena.h"
#include <cstdint>
#include <vector>

__global__ void radix_histogram(const uint32_t* keys, size_t n, int shift, unsigned int* bins) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&bins[(keys[i] >> shift) & 0xff], 1u);
}

int main() {
    CU_CHECK(cuInit(0));
    cudaSetDevice(0);
    cudaFree(0);  // make the primary context current for the driver API

    cudaStream_t stream;
    cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);

    const size_t n = 1u << 24;
    unsigned int* h_bins = nullptr;
    cudaMallocHost(&h_bins, 256 * sizeof(unsigned int));
    {
        VmmArena keys(0, n * sizeof(uint32_t), stream);
        VmmArena bins(0, 256 * sizeof(unsigned int), stream);

        cudaMemsetAsync(keys.as<uint32_t>(), 0x5a, n * sizeof(uint32_t), stream);
        cudaMemsetAsync(bins.as<unsigned int>(), 0, 256 * sizeof(unsigned int), stream);
        radix_histogram<<<(unsigned)((n + 255) / 256), 256, 0, stream>>>(keys.as<uint32_t>(), n, 8, bins.as<unsigned int>());
        cudaMemcpyAsync(h_bins, bins.as<unsigned int>(), 256 * sizeof(unsigned int), cudaMemcpyDeviceToHost, stream);
        cudaStreamSynchronize(stream);
    }  // ~VmmArena: sync, unmap, release, free the range

    unsigned int peak = 0;
    for (int b = 0; b < 256; ++b) peak = h_bins[b] > peak ? h_bins[b] : peak;
    std::printf("peak bin %u\n", peak);
    cudaFreeHost(h_bins);
    cudaStreamDestroy(stream);
    return 0;
}

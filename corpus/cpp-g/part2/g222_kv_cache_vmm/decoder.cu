// case: a decoder's VmmKvCache constructor maps its VMM allocation and calls zero_fill(), which launches a zeroing kernel on the mapping, before grant() calls cuMemSetAccess, so the first use of the mapping has no access.
// expect: vmm_lifecycle=1
#include "vmm_kv_cache.h"
#include <cstdio>
#include <memory>

__global__ void append_token(float* kv, size_t pos, size_t head_dim, float value) {
    size_t d = threadIdx.x;
    if (d < head_dim) kv[pos * head_dim + d] = value + 0.001f * d;
}

__global__ void sum_cache(const float* kv, size_t n, float* out) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(out, kv[i]);
}

int main() {
    KV_DRV(cuInit(0));
    cudaFree(nullptr);
    cudaStream_t stream;
    cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);

    const size_t layers = 4, tokens = 4096, head_dim = 128;
    auto cache = std::make_unique<VmmKvCache>(0, layers, tokens, head_dim, stream);

    float* d_sum = nullptr;
    float* h_sum = nullptr;
    cudaMalloc(&d_sum, sizeof(float));
    cudaMallocHost(&h_sum, sizeof(float));
    cudaMemsetAsync(d_sum, 0, sizeof(float), stream);

    for (size_t pos = 0; pos < 256; ++pos)
        append_token<<<1, 128, 0, stream>>>(cache->data(), pos, head_dim, float(pos));
    sum_cache<<<(unsigned)((cache->elems() + 255) / 256), 256, 0, stream>>>(cache->data(), cache->elems(), d_sum);
    cudaMemcpyAsync(h_sum, d_sum, sizeof(float), cudaMemcpyDeviceToHost, stream);
    cudaStreamSynchronize(stream);
    std::printf("kv checksum %f\n", *h_sum);

    cache.reset();
    cudaFree(d_sum);
    cudaFreeHost(h_sum);
    cudaStreamDestroy(stream);
    return 0;
}

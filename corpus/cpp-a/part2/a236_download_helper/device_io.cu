#include "device_io.h"
#include <cstdio>

cudaError_t download_blocking(void* h_pinned, const void* d_src, size_t bytes, cudaStream_t stream) {
    cudaError_t err = cudaMemcpyAsync(h_pinned, d_src, bytes, cudaMemcpyDeviceToHost, stream);
    if (err != cudaSuccess) return err;
    return cudaStreamSynchronize(stream);
}

void* pinned_alloc(size_t bytes) {
    void* p = nullptr;
    if (cudaMallocHost(&p, bytes) != cudaSuccess) {
        std::fprintf(stderr, "pinned_alloc(%zu) failed\n", bytes);
        return nullptr;
    }
    return p;
}

void pinned_free(void* p) {
    if (p) cudaFreeHost(p);
}

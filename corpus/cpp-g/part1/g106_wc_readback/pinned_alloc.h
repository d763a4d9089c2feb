#pragma once
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK_CUDA(call)                                                    \
    do {                                                                    \
        cudaError_t status_ = (call);                                       \
        if (status_ != cudaSuccess) {                                       \
            std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__,          \
                         cudaGetErrorString(status_));                      \
            std::exit(EXIT_FAILURE);                                        \
        }                                                                   \
    } while (0)

// Upload staging: the host only writes it, so write-combining speeds the PCIe transfer.
static float* alloc_upload_buffer(size_t n) {
    float* p = nullptr;
    CHECK_CUDA(cudaHostAlloc(reinterpret_cast<void**>(&p), n * sizeof(float),
                             cudaHostAllocWriteCombined));
    return p;
}

// Readback staging (copied from the function above).
static float* alloc_readback_buffer(size_t n) {
    float* p = nullptr;
    CHECK_CUDA(cudaHostAlloc(reinterpret_cast<void**>(&p), n * sizeof(float),
                             cudaHostAllocWriteCombined | cudaHostAllocPortable));
    return p;
}

static void release_buffer(float* p) { CHECK_CUDA(cudaFreeHost(p)); }

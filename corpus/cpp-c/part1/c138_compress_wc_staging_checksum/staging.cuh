// Pinned host staging buffers for the block compressor. Upload buffers are write-combined:
// the host fills them once and the DMA engine reads them, so they skip the CPU caches.
#pragma once
#include <cuda_runtime.h>
#include <cstddef>
#include <new>
#include <stdexcept>
#include <utility>

template <typename T>
class HostStaging {
public:
    HostStaging(size_t n, unsigned flags) : n_(n) {
        if (cudaHostAlloc(reinterpret_cast<void**>(&ptr_), n * sizeof(T), flags) != cudaSuccess)
            throw std::bad_alloc();
    }
    ~HostStaging() {
        if (ptr_) cudaFreeHost(ptr_);
    }
    HostStaging(HostStaging&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), n_(o.n_) {}
    HostStaging(const HostStaging&) = delete;
    HostStaging& operator=(const HostStaging&) = delete;

    T* data() { return ptr_; }
    const T* data() const { return ptr_; }
    size_t size() const { return n_; }
    size_t bytes() const { return n_ * sizeof(T); }

private:
    T* ptr_ = nullptr;
    size_t n_ = 0;
};

template <typename T>
HostStaging<T> make_upload_staging(size_t n) {
    return HostStaging<T>(n, cudaHostAllocWriteCombined);
}

template <typename T>
HostStaging<T> make_readback_staging(size_t n) {
    return HostStaging<T>(n, cudaHostAllocDefault);
}

#pragma once
#include <cuda_runtime.h>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <memory>

#define CUDA_CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); std::exit(1); } } while (0)

// Staging buffer for read batches: allocated and released by the same allocator.
class HostStaging {
public:
    explicit HostStaging(size_t bytes) : bytes_(bytes) { CUDA_CHECK(cudaMallocHost(&ptr_, bytes)); }
    ~HostStaging() { cudaFreeHost(ptr_); }
    HostStaging(const HostStaging&) = delete;
    HostStaging& operator=(const HostStaging&) = delete;
    template <typename T> T* as() { return static_cast<T*>(ptr_); }
    size_t bytes() const { return bytes_; }
private:
    void* ptr_ = nullptr;
    size_t bytes_;
};

// Result buffers: "CUDA memory" released through one deleter.
struct CudaDeleter {
    void operator()(void* p) const {
        if (p) cudaFree(p); // EXPECT: mismatched_free
    }
};

template <typename T>
using PinnedArray = std::unique_ptr<T[], CudaDeleter>;

template <typename T>
PinnedArray<T> make_pinned_array(size_t n) {
    void* p = nullptr;
    CUDA_CHECK(cudaHostAlloc(&p, n * sizeof(T), cudaHostAllocPortable));
    return PinnedArray<T>(static_cast<T*>(p));
}

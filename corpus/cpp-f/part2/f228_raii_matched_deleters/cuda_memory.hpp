#pragma once
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <new>

namespace gpu {

struct DeviceDeleter {
    void operator()(void* p) const noexcept { if (p) cudaFree(p); }
};
struct PinnedDeleter {
    void operator()(void* p) const noexcept { if (p) cudaFreeHost(p); }
};
struct MallocDeleter {
    void operator()(void* p) const noexcept { std::free(p); }
};

template <typename T> using device_ptr = std::unique_ptr<T[], DeviceDeleter>;
template <typename T> using pinned_ptr = std::unique_ptr<T[], PinnedDeleter>;
template <typename T> using heap_ptr = std::unique_ptr<T[], MallocDeleter>;

template <typename T>
device_ptr<T> make_device(size_t n) {
    void* p = nullptr;
    if (cudaMalloc(&p, n * sizeof(T)) != cudaSuccess) throw std::bad_alloc();
    return device_ptr<T>(static_cast<T*>(p));
}

template <typename T>
pinned_ptr<T> make_pinned(size_t n) {
    void* p = nullptr;
    if (cudaMallocHost(&p, n * sizeof(T)) != cudaSuccess) throw std::bad_alloc();
    return pinned_ptr<T>(static_cast<T*>(p));
}

template <typename T>
heap_ptr<T> make_heap(size_t n) {
    void* p = std::malloc(n * sizeof(T));
    if (!p) throw std::bad_alloc();
    return heap_ptr<T>(static_cast<T*>(p));
}

// Page-locks an existing host range for the lifetime of the guard.
class HostRegistration {
public:
    HostRegistration(void* p, size_t bytes) : p_(p) {
        ok_ = cudaHostRegister(p, bytes, cudaHostRegisterPortable) == cudaSuccess;
    }
    ~HostRegistration() { if (ok_) cudaHostUnregister(p_); }
    bool ok() const { return ok_; }

private:
    void* p_;
    bool ok_ = false;
};

}  // namespace gpu

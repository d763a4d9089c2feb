#pragma once
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <memory>

#define CUDA_CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); std::exit(1); } } while (0)

namespace gpu {

struct DeviceDeleter  { void operator()(void* p) const { if (p) cudaFree(p); } };
struct PinnedDeleter  { void operator()(void* p) const { if (p) cudaFreeHost(p); } };

template <typename T> using device_ptr  = std::unique_ptr<T[], DeviceDeleter>;
template <typename T> using pinned_ptr  = std::unique_ptr<T[], PinnedDeleter>;
template <typename T> using managed_ptr = std::unique_ptr<T[], DeviceDeleter>; // managed memory is freed by cudaFree too

template <typename T> device_ptr<T> make_device(size_t n) {
    void* p = nullptr;
    CUDA_CHECK(cudaMalloc(&p, n * sizeof(T)));
    return device_ptr<T>(static_cast<T*>(p));
}
template <typename T> pinned_ptr<T> make_pinned(size_t n) {
    void* p = nullptr;
    CUDA_CHECK(cudaHostAlloc(&p, n * sizeof(T), cudaHostAllocPortable));
    return pinned_ptr<T>(static_cast<T*>(p));
}
template <typename T> managed_ptr<T> make_managed(size_t n) {
    void* p = nullptr;
    CUDA_CHECK(cudaMallocManaged(&p, n * sizeof(T)));
    return managed_ptr<T>(static_cast<T*>(p));
}

// Page-locks memory it does not own for the lifetime of the guard.
class HostRegistration {
public:
    HostRegistration(void* p, size_t bytes) : p_(p) { CUDA_CHECK(cudaHostRegister(p_, bytes, cudaHostRegisterPortable)); }
    ~HostRegistration() { cudaHostUnregister(p_); }
    HostRegistration(const HostRegistration&) = delete;
    HostRegistration& operator=(const HostRegistration&) = delete;
private:
    void* p_;
};

} // namespace gpu

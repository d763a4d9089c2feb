#pragma once
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)

inline cudaError_t prefetch_to(const void* p, size_t bytes, int device, cudaStream_t s) {
#if CUDART_VERSION >= 13000
    cudaMemLocation loc;
    loc.type = (device == cudaCpuDeviceId) ? cudaMemLocationTypeHost : cudaMemLocationTypeDevice;
    loc.id = (device == cudaCpuDeviceId) ? 0 : device;
    return cudaMemPrefetchAsync(p, bytes, loc, 0, s);
#else
    return cudaMemPrefetchAsync(p, bytes, device, s);
#endif
}

inline cudaError_t advise_read_mostly(const void* p, size_t bytes, int device) {
#if CUDART_VERSION >= 13000
    cudaMemLocation loc;
    loc.type = cudaMemLocationTypeDevice;
    loc.id = device;
    return cudaMemAdvise(p, bytes, cudaMemAdviseSetReadMostly, loc);
#else
    return cudaMemAdvise(p, bytes, cudaMemAdviseSetReadMostly, device);
#endif
}

// Owns one cudaMallocManaged allocation.
template <typename T>
class ManagedArray {
public:
    explicit ManagedArray(size_t n) : n_(n), p_(nullptr) {
        CHECK(cudaMallocManaged(&p_, n * sizeof(T)));
    }
    ~ManagedArray() { cudaFree(p_); }
    ManagedArray(const ManagedArray&) = delete;
    ManagedArray& operator=(const ManagedArray&) = delete;

    T* data() { return p_; }
    size_t size() const { return n_; }
    size_t bytes() const { return n_ * sizeof(T); }
    T& operator[](size_t i) { return p_[i]; }

private:
    size_t n_;
    T* p_;
};

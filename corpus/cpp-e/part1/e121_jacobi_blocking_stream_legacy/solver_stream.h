#pragma once
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); std::exit(1); } } while (0)

// A solver stream. Deliberately created with cudaStreamCreate (a *blocking* stream):
// work on the legacy default stream, such as a plain cudaMemcpy, waits for the work
// already queued here, and work queued here afterwards waits for it.
class SolverStream {
public:
    SolverStream() { CUDA_CHECK(cudaStreamCreate(&s_)); }
    ~SolverStream() { cudaStreamDestroy(s_); }
    SolverStream(const SolverStream&) = delete;
    SolverStream& operator=(const SolverStream&) = delete;
    operator cudaStream_t() const { return s_; }
private:
    cudaStream_t s_{};
};

template <typename T>
struct DeviceArray {
    T* ptr = nullptr;
    size_t n = 0;
    explicit DeviceArray(size_t count) : n(count) { CUDA_CHECK(cudaMalloc(&ptr, n * sizeof(T))); }
    ~DeviceArray() { cudaFree(ptr); }
    DeviceArray(const DeviceArray&) = delete;
    DeviceArray& operator=(const DeviceArray&) = delete;
    size_t bytes() const { return n * sizeof(T); }
};

// Halo staging buffers for the weather model's distributed stencil.
#pragma once
#include <cuda_runtime.h>
#include <cstddef>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(expr) do { cudaError_t e_ = (expr); if (e_ != cudaSuccess) { \
    std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); std::exit(1); } } while (0)

constexpr int kNx = 2048;
constexpr int kNy = 2048;
constexpr int kHaloWidth = 4;
constexpr size_t kHaloElems = size_t(kNx) * kHaloWidth;
constexpr size_t kHaloBytes = kHaloElems * sizeof(double);

// Outgoing halos are only written by the host (packed from the neighbour's message) and then
// uploaded: write-combined pinned memory is the right choice there.
// Incoming halos are read by the host after download: plain pinned memory.
class HaloStaging {
public:
    HaloStaging() {
        CUDA_CHECK(cudaHostAlloc(&upload_, kHaloBytes, cudaHostAllocWriteCombined));
        CUDA_CHECK(cudaHostAlloc(&download_, kHaloBytes, cudaHostAllocDefault));
    }
    ~HaloStaging() {
        cudaFreeHost(download_);
        cudaFreeHost(upload_);
    }
    double* upload() { return upload_; }
    double* download() { return download_; }

private:
    double* upload_ = nullptr;
    double* download_ = nullptr;
};

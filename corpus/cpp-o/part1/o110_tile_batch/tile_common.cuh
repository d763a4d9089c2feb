#pragma once
#include <cuda_runtime.h>
#include <cstdio>
#include <string>
#include <vector>

// Returns the failing status from the enclosing function.
#define TRY_CUDA(expr)                                                         \
    do {                                                                       \
        cudaError_t status_ = (expr);                                          \
        if (status_ != cudaSuccess) {                                          \
            std::fprintf(stderr, "%s failed: %s\n", #expr,                    \
                         cudaGetErrorString(status_));                         \
            return status_;                                                    \
        }                                                                      \
    } while (0)

struct Tile {
    int x0, y0, w, h;
    std::string source;
};

class GpuTimer {
public:
    GpuTimer() { cudaEventCreate(&a_); cudaEventCreate(&b_); }
    ~GpuTimer() { cudaEventDestroy(a_); cudaEventDestroy(b_); }
    void start(cudaStream_t s) { cudaEventRecord(a_, s); }
    float stop(cudaStream_t s) {
        cudaEventRecord(b_, s);
        cudaEventSynchronize(b_);
        float ms = 0.f;
        cudaEventElapsedTime(&ms, a_, b_);
        return ms;
    }
private:
    cudaEvent_t a_, b_;
};

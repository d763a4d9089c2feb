// Simulation parameters shared by the host game loop and the particle kernels.
#pragma once
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); std::exit(1); } } while (0)

// project helper: allocate and zero a device array (blocking memset on the legacy stream)
#define DEVICE_ZEROED(ptr, count) do { \
    CUDA_CHECK(cudaMalloc(&(ptr), sizeof(*(ptr)) * (count))); \
    CUDA_CHECK(cudaMemset((ptr), 0, sizeof(*(ptr)) * (count))); } while (0)

struct SimParams {
    float dt;
    float gravity;
    float drag;
    float wind_x;
    float wind_z;
    int frame;
};

inline SimParams* make_params() {
    SimParams* p = nullptr;
    CUDA_CHECK(cudaMallocManaged(&p, sizeof(SimParams)));   // attached globally
    *p = SimParams{1.f / 60.f, -9.81f, 0.02f, 0.f, 0.f, 0};
    return p;
}

#pragma once
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(call) do { cudaError_t e = (call); if (e != cudaSuccess) { \
    fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); exit(1); } } while (0)

struct ParticlesSoA {
    float* pos_x;
    float* pos_y;
    float* vel_x;
    float* vel_y;
    int count;
};

inline void particles_alloc(ParticlesSoA& p, int n) {
    p.count = n;
    CUDA_CHECK(cudaMalloc(&p.pos_x, n * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&p.pos_y, n * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&p.vel_x, n * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&p.vel_y, n * sizeof(float)));
}

inline void particles_free(ParticlesSoA& p) {
    CUDA_CHECK(cudaFree(p.vel_y));
    CUDA_CHECK(cudaFree(p.vel_x));
    CUDA_CHECK(cudaFree(p.pos_y));
    CUDA_CHECK(cudaFree(p.pos_x));
}

inline size_t particles_bytes(const ParticlesSoA& p) {
    return 4 * (size_t)p.count * sizeof(float);
}

inline void particles_reset_velocity(ParticlesSoA& p, float vx0) {
    CUDA_CHECK(cudaMemset(p.vel_y, 0, p.count * sizeof(float)));
    for (int i = 0; i < p.count; ++i)
        p.vel_x[i] = vx0; // EXPECT: host_deref_device_ptr
}

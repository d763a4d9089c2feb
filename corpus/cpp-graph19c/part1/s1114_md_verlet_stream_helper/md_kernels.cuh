#pragma once
#include <cuda_runtime.h>
#include "cuda_check.h"

// Lennard-Jones particles in a periodic cube, reduced units (sigma = epsilon = m = 1).

// All-pairs LJ with a cutoff and minimum image; adds into force[i] (w: potential energy).
__global__ void lj_forces(const float4* __restrict__ pos, float4* __restrict__ force, int n,
                          float box, float rc2) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float4 pi = pos[i];
    float4 f = force[i];
    for (int j = 0; j < n; ++j) {
        if (j == i) continue;
        const float4 pj = pos[j];
        float dx = pi.x - pj.x, dy = pi.y - pj.y, dz = pi.z - pj.z;
        dx -= box * rintf(dx / box);
        dy -= box * rintf(dy / box);
        dz -= box * rintf(dz / box);
        const float r2 = dx * dx + dy * dy + dz * dz;
        if (r2 >= rc2) continue;
        const float inv2 = 1.0f / r2, inv6 = inv2 * inv2 * inv2;
        const float s = 24.0f * inv2 * inv6 * (2.0f * inv6 - 1.0f);
        f.x += s * dx;
        f.y += s * dy;
        f.z += s * dz;
        f.w += 2.0f * inv6 * (inv6 - 1.0f);  // half of 4 (r^-12 - r^-6): each pair counted twice
    }
    force[i] = f;
}

// Soft harmonic wall that keeps the droplet near the box centre; adds into force.
__global__ void tether_forces(const float4* __restrict__ pos, float4* __restrict__ force, int n,
                              float centre, float k) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float4 p = pos[i];
    float4 f = force[i];
    f.x -= k * (p.x - centre);
    f.y -= k * (p.y - centre);
    f.z -= k * (p.z - centre);
    force[i] = f;
}

__global__ void half_kick(float4* __restrict__ vel, const float4* __restrict__ force, int n,
                          float half_dt) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float4 f = force[i];
    float4 v = vel[i];
    v.x += half_dt * f.x;
    v.y += half_dt * f.y;
    v.z += half_dt * f.z;
    vel[i] = v;
}

__global__ void drift(float4* __restrict__ pos, const float4* __restrict__ vel, int n, float dt,
                      float box) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float4 v = vel[i];
    float4 p = pos[i];
    p.x += dt * v.x;
    p.y += dt * v.y;
    p.z += dt * v.z;
    p.x -= box * floorf(p.x / box);
    p.y -= box * floorf(p.y / box);
    p.z -= box * floorf(p.z / box);
    pos[i] = p;
}

// energies[0] += kinetic, energies[1] += potential.
__global__ void energies(const float4* __restrict__ vel, const float4* __restrict__ force, int n,
                         float* __restrict__ out) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float4 v = vel[i];
    atomicAdd(&out[0], 0.5f * (v.x * v.x + v.y * v.y + v.z * v.z));
    atomicAdd(&out[1], force[i].w);
}

// Force accumulators must start from zero before each evaluation. Enqueued on the
// caller's stream, so that it is ordered with (and captured with) the force kernels.
inline void zero_forces(float4* d_force, int n, cudaStream_t stream) {
    CUDA_CHECK(cudaMemsetAsync(d_force, 0, static_cast<size_t>(n) * sizeof(float4), stream));
}

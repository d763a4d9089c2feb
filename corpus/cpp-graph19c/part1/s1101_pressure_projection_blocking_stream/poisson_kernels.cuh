#pragma once
#include <cuda_runtime.h>

// Counters the solver keeps on the device across every projection it runs.
struct SolveStats {
    unsigned long long sweeps;  // red-black sweeps run since the counters were reset
    unsigned int solves;        // projections run since the counters were reset
    float worst_residual2;      // largest end-of-solve squared residual seen
};

constexpr int kTile = 16;

// rhs = div(u*) / dt, central differences on a collocated grid.
__global__ void divergence_rhs(const float* __restrict__ u, const float* __restrict__ v,
                               float* __restrict__ rhs, int nx, int ny, float inv_2dx,
                               float inv_dt) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= nx || j >= ny) return;
    const int im = i > 0 ? i - 1 : i, ip = i < nx - 1 ? i + 1 : i;
    const int jm = j > 0 ? j - 1 : j, jp = j < ny - 1 ? j + 1 : j;
    const float dudx = (u[j * nx + ip] - u[j * nx + im]) * inv_2dx;
    const float dvdy = (v[jp * nx + i] - v[jm * nx + i]) * inv_2dx;
    rhs[j * nx + i] = (dudx + dvdy) * inv_dt;
}

// One colour of a red-black Gauss-Seidel sweep for lap(p) = rhs.
__global__ void rbgs_sweep(float* __restrict__ p, const float* __restrict__ rhs, int nx,
                           int ny, float dx2, int colour) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < 1 || j < 1 || i >= nx - 1 || j >= ny - 1) return;
    if (((i + j) & 1) != colour) return;
    const int c = j * nx + i;
    p[c] = 0.25f * (p[c - 1] + p[c + 1] + p[c - nx] + p[c + nx] - dx2 * rhs[c]);
}

// Homogeneous Neumann walls: the ghost ring takes the first interior value.
__global__ void neumann_walls(float* p, int nx, int ny) {
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < nx) {
        p[k] = p[nx + k];
        p[(ny - 1) * nx + k] = p[(ny - 2) * nx + k];
    }
    if (k < ny) {
        p[k * nx] = p[k * nx + 1];
        p[k * nx + nx - 1] = p[k * nx + nx - 2];
    }
}

// Block-reduced squared residual of lap(p) = rhs, accumulated into *res2.
__global__ void residual_l2(const float* __restrict__ p, const float* __restrict__ rhs,
                            int nx, int ny, float inv_dx2, float* res2) {
    __shared__ float partial[kTile * kTile];
    const int tid = threadIdx.y * blockDim.x + threadIdx.x;
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int j = blockIdx.y * blockDim.y + threadIdx.y;
    float r2 = 0.0f;
    if (i >= 1 && j >= 1 && i < nx - 1 && j < ny - 1) {
        const int c = j * nx + i;
        const float lap = (p[c - 1] + p[c + 1] + p[c - nx] + p[c + nx] - 4.0f * p[c]) * inv_dx2;
        const float d = rhs[c] - lap;
        r2 = d * d;
    }
    partial[tid] = r2;
    __syncthreads();
    for (int s = (kTile * kTile) / 2; s > 0; s >>= 1) {
        if (tid < s) partial[tid] += partial[tid + s];
        __syncthreads();
    }
    if (tid == 0) atomicAdd(res2, partial[0]);
}

// Single thread: fold this solve into the running statistics.
__global__ void update_stats(const float* res2, SolveStats* stats, int sweeps) {
    stats->sweeps += static_cast<unsigned long long>(sweeps);
    stats->solves += 1u;
    stats->worst_residual2 = fmaxf(stats->worst_residual2, *res2);
}

// u -= dt * dp/dx, v -= dt * dp/dy (the projection proper).
__global__ void subtract_gradient(float* __restrict__ u, float* __restrict__ v,
                                  const float* __restrict__ p, int nx, int ny, float dt_2dx) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < 1 || j < 1 || i >= nx - 1 || j >= ny - 1) return;
    const int c = j * nx + i;
    u[c] -= dt_2dx * (p[c + 1] - p[c - 1]);
    v[c] -= dt_2dx * (p[c + nx] - p[c - nx]);
}

// Buoyancy-like body force so that every step has divergence to remove.
__global__ void body_force(float* __restrict__ v, int nx, int ny, float dt_g) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= nx || j >= ny) return;
    const float x = static_cast<float>(i) / static_cast<float>(nx - 1);
    v[j * nx + i] += dt_g * (x - 0.5f);
}

#pragma once
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(expr) do { cudaError_t st = (expr); if (st != cudaSuccess) { \
    std::fprintf(stderr, "CUDA failure %s at %s:%d\n", cudaGetErrorString(st), __FILE__, __LINE__); \
    std::exit(EXIT_FAILURE); } } while (0)

#define GRID_N 258
#define GRID_CELLS (GRID_N * GRID_N)

// One Jacobi sweep for -laplace(u) = f on a uniform grid with spacing h.
__global__ void jacobi_sweep(const float* u, const float* f, float* u_new, float h2)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= GRID_N || y >= GRID_N) return;
    int idx = y * GRID_N + x;
    if (x == 0 || y == 0 || x == GRID_N - 1 || y == GRID_N - 1) {
        u_new[idx] = 0.0f;
        return;
    }
    u_new[idx] = 0.25f * (u[idx - 1] + u[idx + 1] + u[idx - GRID_N] + u[idx + GRID_N] + h2 * f[idx]);
}

struct PoissonProblem {
    float* d_u = nullptr;
    float* d_u_new = nullptr;
    float* d_rhs = nullptr;

    PoissonProblem() {
        CUDA_CHECK(cudaMalloc(&d_u, GRID_CELLS * sizeof(float)));
        CUDA_CHECK(cudaMalloc(&d_u_new, GRID_CELLS * sizeof(float)));
        CUDA_CHECK(cudaMalloc(&d_rhs, GRID_CELLS * sizeof(float)));
    }
    ~PoissonProblem() {
        cudaFree(d_u);
        cudaFree(d_u_new);
        cudaFree(d_rhs);
    }
};

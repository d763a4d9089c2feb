// Kernels and host helpers of a distributed conjugate-gradient solver for the
// 1-D Laplacian, everything on the legacy default stream.
#pragma once
#include <mpi.h>
#include <cuda_runtime.h>
#include <cstdio>

#define CHECK(call)                                                            \
    do {                                                                       \
        cudaError_t err_ = (call);                                             \
        if (err_ != cudaSuccess) {                                             \
            fprintf(stderr, "CUDA error %s at %s:%d\n",                        \
                    cudaGetErrorString(err_), __FILE__, __LINE__);             \
            MPI_Abort(MPI_COMM_WORLD, 1);                                      \
        }                                                                      \
    } while (0)

constexpr int kThreads = 256;

__global__ void laplacian(const double* p, double* Ap, int n, double ghost_l, double ghost_r) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double l = i > 0 ? p[i - 1] : ghost_l;
    double r = i < n - 1 ? p[i + 1] : ghost_r;
    Ap[i] = 2.0 * p[i] - l - r;
}

__global__ void dot_kernel(const double* a, const double* b, double* out, int n) {
    __shared__ double part[kThreads];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    part[threadIdx.x] = i < n ? a[i] * b[i] : 0.0;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) part[threadIdx.x] += part[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) atomicAdd(out, part[0]);
}

__global__ void update_xr(double* x, double* r, const double* p, const double* Ap, double alpha, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { x[i] += alpha * p[i]; r[i] -= alpha * Ap[i]; }
}

__global__ void update_p(double* p, const double* r, double beta, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] = r[i] + beta * p[i];
}

// Global dot product: the blocking copy returns once dot_kernel is done, then
// the host scalar is reduced over all ranks.
inline double global_dot(const double* d_a, const double* d_b, double* d_scratch, int n) {
    CHECK(cudaMemset(d_scratch, 0, sizeof(double)));
    dot_kernel<<<(n + kThreads - 1) / kThreads, kThreads>>>(d_a, d_b, d_scratch, n);
    double local = 0.0, global = 0.0;
    CHECK(cudaMemcpy(&local, d_scratch, sizeof(double), cudaMemcpyDeviceToHost));
    MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return global;
}

// Boundary values of p for the neighbours (host scalars, blocking copies).
inline void exchange_edges(const double* d_p, int n, int left, int right, double* ghost_l, double* ghost_r) {
    double first = 0.0, last = 0.0;
    CHECK(cudaMemcpy(&first, d_p, sizeof(double), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(&last, d_p + n - 1, sizeof(double), cudaMemcpyDeviceToHost));
    *ghost_l = 0.0;
    *ghost_r = 0.0;
    MPI_Sendrecv(&last, 1, MPI_DOUBLE, right, 0, ghost_l, 1, MPI_DOUBLE, left, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&first, 1, MPI_DOUBLE, left, 1, ghost_r, 1, MPI_DOUBLE, right, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

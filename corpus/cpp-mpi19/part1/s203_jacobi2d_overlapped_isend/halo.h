// Row-halo buffers and kernels of a 2-D Jacobi solver decomposed in y.
#pragma once
#include <mpi.h>
#include <cuda_runtime.h>
#include <cstdio>

#define CUDA_CHECK(call)                                                       \
    do {                                                                       \
        cudaError_t e_ = (call);                                               \
        if (e_ != cudaSuccess) {                                               \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,                 \
                    cudaGetErrorString(e_));                                   \
            MPI_Abort(MPI_COMM_WORLD, 2);                                      \
        }                                                                      \
    } while (0)

struct Halo {
    double* d_top_send;
    double* d_bot_send;
    double* d_top_recv;
    double* d_bot_recv;
    int nx;
};

__global__ void pack_row(const double* u, double* buf, int nx, int row) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < nx) buf[i] = u[row * nx + i];
}

__global__ void unpack_row(double* u, const double* buf, int nx, int row) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < nx) u[row * nx + i] = buf[i];
}

inline void halo_alloc(Halo& h, int nx) {
    h.nx = nx;
    size_t bytes = nx * sizeof(double);
    CUDA_CHECK(cudaMalloc(&h.d_top_send, bytes));
    CUDA_CHECK(cudaMalloc(&h.d_bot_send, bytes));
    CUDA_CHECK(cudaMalloc(&h.d_top_recv, bytes));
    CUDA_CHECK(cudaMalloc(&h.d_bot_recv, bytes));
    CUDA_CHECK(cudaMemset(h.d_top_recv, 0, bytes));
    CUDA_CHECK(cudaMemset(h.d_bot_recv, 0, bytes));
}

inline void halo_free(Halo& h) {
    CUDA_CHECK(cudaFree(h.d_top_send));
    CUDA_CHECK(cudaFree(h.d_bot_send));
    CUDA_CHECK(cudaFree(h.d_top_recv));
    CUDA_CHECK(cudaFree(h.d_bot_recv));
}

// Receives go into reqs[0] (from above) and reqs[1] (from below).
inline void post_halo_recvs(Halo& h, int up, int down, MPI_Request* reqs) {
    MPI_Irecv(h.d_top_recv, h.nx, MPI_DOUBLE, up, 1, MPI_COMM_WORLD, &reqs[0]);
    MPI_Irecv(h.d_bot_recv, h.nx, MPI_DOUBLE, down, 0, MPI_COMM_WORLD, &reqs[1]);
}

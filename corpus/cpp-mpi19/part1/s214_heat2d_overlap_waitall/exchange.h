// Halo buffers and the helpers that start their exchange.
#pragma once
#include <mpi.h>
#include <cuda_runtime.h>
#include <cstdio>

#define CUDA_TRY(call)                                                         \
    do {                                                                       \
        cudaError_t st_ = (call);                                              \
        if (st_ != cudaSuccess) {                                              \
            fprintf(stderr, "%s failed: %s\n", #call, cudaGetErrorString(st_));\
            MPI_Abort(MPI_COMM_WORLD, 1);                                      \
        }                                                                      \
    } while (0)

struct HaloBuffers {
    float* top_send;
    float* bot_send;
    float* top_recv;
    float* bot_recv;
    int nx;
};

inline void halo_create(HaloBuffers& hb, int nx) {
    hb.nx = nx;
    size_t bytes = nx * sizeof(float);
    CUDA_TRY(cudaMalloc(&hb.top_send, bytes));
    CUDA_TRY(cudaMalloc(&hb.bot_send, bytes));
    CUDA_TRY(cudaMalloc(&hb.top_recv, bytes));
    CUDA_TRY(cudaMalloc(&hb.bot_recv, bytes));
    CUDA_TRY(cudaMemset(hb.top_recv, 0, bytes));
    CUDA_TRY(cudaMemset(hb.bot_recv, 0, bytes));
}

inline void halo_destroy(HaloBuffers& hb) {
    CUDA_TRY(cudaFree(hb.top_send));
    CUDA_TRY(cudaFree(hb.bot_send));
    CUDA_TRY(cudaFree(hb.top_recv));
    CUDA_TRY(cudaFree(hb.bot_recv));
}

// reqs[0], reqs[1]: receives from above and below
inline void post_receives(const HaloBuffers& hb, int up, int down, MPI_Request* reqs) {
    MPI_Irecv(hb.top_recv, hb.nx, MPI_FLOAT, up, 20, MPI_COMM_WORLD, &reqs[0]);
    MPI_Irecv(hb.bot_recv, hb.nx, MPI_FLOAT, down, 10, MPI_COMM_WORLD, &reqs[1]);
}

// reqs[2], reqs[3]: sends of the packed edge rows (packed and synchronized by the caller)
inline void start_sends(const HaloBuffers& hb, int up, int down, MPI_Request* reqs) {
    MPI_Isend(hb.top_send, hb.nx, MPI_FLOAT, up, 10, MPI_COMM_WORLD, &reqs[2]);
    MPI_Isend(hb.bot_send, hb.nx, MPI_FLOAT, down, 20, MPI_COMM_WORLD, &reqs[3]);
}

#pragma once
// MPI bootstrap for NCCL: one process per GPU, the unique id broadcast from rank 0.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include <mpi.h>
#include <nccl.h>

#define CUDA_CHECK(call)                                                          \
    do {                                                                          \
        cudaError_t err_ = (call);                                                \
        if (err_ != cudaSuccess) {                                                \
            std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,               \
                         cudaGetErrorString(err_));                               \
            MPI_Abort(MPI_COMM_WORLD, 1);                                         \
        }                                                                         \
    } while (0)

#define NCCL_CHECK(call)                                                          \
    do {                                                                          \
        ncclResult_t r_ = (call);                                                 \
        if (r_ != ncclSuccess) {                                                  \
            std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,               \
                         ncclGetErrorString(r_));                                 \
            MPI_Abort(MPI_COMM_WORLD, 1);                                         \
        }                                                                         \
    } while (0)

struct Dist {
    int rank = 0;
    int size = 1;
    ncclComm_t comm = nullptr;
};

inline Dist dist_init(int* argc, char*** argv) {
    Dist d;
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &d.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &d.size);
    int devices = 0;
    CUDA_CHECK(cudaGetDeviceCount(&devices));
    CUDA_CHECK(cudaSetDevice(d.rank % devices));
    ncclUniqueId id;
    if (d.rank == 0) NCCL_CHECK(ncclGetUniqueId(&id));
    MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, MPI_COMM_WORLD);
    NCCL_CHECK(ncclCommInitRank(&d.comm, d.size, id, d.rank));
    return d;
}

inline void dist_finalize(Dist& d) {
    NCCL_CHECK(ncclCommDestroy(d.comm));
    MPI_Finalize();
}

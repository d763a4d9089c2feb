// Distributed explicit heat solver: halo rows are exchanged with NCCL point-to-point calls
// on the solver's stream, grouped so that sends and receives to both neighbours progress
// together. Fixed (zero) temperature above the first and below the last rank.
#include <cstdio>
#include <cstdlib>
#include <utility>
#include <mpi.h>
#include <nccl.h>
#include "heat_kernels.cuh"

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

constexpr int kWidth = 4096;
constexpr int kRowsPerRank = 1024;
constexpr int kSteps = 500;
constexpr float kAlpha = 0.2f;

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, nranks = 1, devices = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    CUDA_CHECK(cudaGetDeviceCount(&devices));
    CUDA_CHECK(cudaSetDevice(rank % devices));
    ncclUniqueId id;
    if (rank == 0) NCCL_CHECK(ncclGetUniqueId(&id));
    MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, MPI_COMM_WORLD);
    ncclComm_t comm;
    NCCL_CHECK(ncclCommInitRank(&comm, nranks, id, rank));
    const int up = rank - 1, down = rank + 1;  // neighbours; out of range at the ends

    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

    const size_t field_elems = static_cast<size_t>(kRowsPerRank) * kWidth;
    float *d_u, *d_u_next, *d_send_top, *d_send_bottom, *d_halo_top, *d_halo_bottom;
    CUDA_CHECK(cudaMalloc(&d_u, field_elems * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_u_next, field_elems * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_send_top, kWidth * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_send_bottom, kWidth * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_halo_top, kWidth * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_halo_bottom, kWidth * sizeof(float)));
    float* h_u = nullptr;
    CUDA_CHECK(cudaMallocHost(&h_u, field_elems * sizeof(float)));

    // Boundary ranks keep a zero halo on their open side for the whole run.
    CUDA_CHECK(cudaMemsetAsync(d_halo_top, 0, kWidth * sizeof(float), stream));
    CUDA_CHECK(cudaMemsetAsync(d_halo_bottom, 0, kWidth * sizeof(float), stream));
    const dim3 block(256), grid2d((kWidth + 255) / 256, kRowsPerRank), grid1d((kWidth + 255) / 256);
    init_field<<<grid2d, block, 0, stream>>>(d_u, kRowsPerRank, kWidth, rank * kRowsPerRank);
    CUDA_CHECK(cudaGetLastError());

    for (int step = 0; step < kSteps; ++step) {
        pack_edges<<<grid1d, block, 0, stream>>>(d_u, d_send_top, d_send_bottom, kRowsPerRank, kWidth);
        CUDA_CHECK(cudaGetLastError());

        NCCL_CHECK(ncclGroupStart());
        if (up >= 0) {
            NCCL_CHECK(ncclSend(d_send_top, kWidth, ncclFloat, up, comm, stream));
            NCCL_CHECK(ncclRecv(d_halo_top, kWidth, ncclFloat, up, comm, stream));
        }
        if (down < nranks) {
            NCCL_CHECK(ncclSend(d_send_bottom, kWidth, ncclFloat, down, comm, stream));
            NCCL_CHECK(ncclRecv(d_halo_bottom, kWidth, ncclFloat, down, comm, stream));
        }
        NCCL_CHECK(ncclGroupEnd());

        heat_step<<<grid2d, block, 0, stream>>>(d_u, d_halo_top, d_halo_bottom, d_u_next,
                                                kRowsPerRank, kWidth, kAlpha);
        CUDA_CHECK(cudaGetLastError());
        std::swap(d_u, d_u_next);
    }

    CUDA_CHECK(cudaMemcpyAsync(h_u, d_u, field_elems * sizeof(float), cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    double local_heat = 0.0, total_heat = 0.0;
    for (size_t i = 0; i < field_elems; ++i) local_heat += h_u[i];
    MPI_Allreduce(&local_heat, &total_heat, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) std::printf("total heat after %d steps: %.6e\n", kSteps, total_heat);

    CUDA_CHECK(cudaFreeHost(h_u));
    CUDA_CHECK(cudaFree(d_halo_bottom));
    CUDA_CHECK(cudaFree(d_halo_top));
    CUDA_CHECK(cudaFree(d_send_bottom));
    CUDA_CHECK(cudaFree(d_send_top));
    CUDA_CHECK(cudaFree(d_u_next));
    CUDA_CHECK(cudaFree(d_u));
    CUDA_CHECK(cudaStreamDestroy(stream));
    NCCL_CHECK(ncclCommDestroy(comm));
    MPI_Finalize();
    return 0;
}

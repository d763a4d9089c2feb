// Sequence-parallel -> tensor-parallel transition of a transformer layer at inference: every
// rank holds the activations of a slice of the tokens; the slices are all-gathered on the
// communication stream into the full activation matrix, then each rank multiplies it by its
// shard of the column-parallel weight matrix.
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <vector>
#include <cuda_runtime.h>
#include <cublas_v2.h>
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

#define CUBLAS_CHECK(call)                                                        \
    do {                                                                          \
        cublasStatus_t st_ = (call);                                              \
        if (st_ != CUBLAS_STATUS_SUCCESS) {                                       \
            std::fprintf(stderr, "%s:%d: cuBLAS status %d\n", __FILE__, __LINE__, \
                         static_cast<int>(st_));                                  \
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

constexpr int kIn = 2048;              // hidden size
constexpr int kTokensPerRank = 512;    // sequence slice held by each rank
constexpr int kOutPerRank = 2048;      // output features computed by each rank

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

    const int tokens = kTokensPerRank * nranks;
    // Activations are column-major hidden x tokens; a rank's slice is a contiguous block of
    // columns, so the gathered buffer is the full hidden x tokens matrix.
    const size_t local_elems = static_cast<size_t>(kIn) * kTokensPerRank;
    const size_t full_elems = local_elems * nranks;
    const size_t w_elems = static_cast<size_t>(kOutPerRank) * kIn;
    const size_t y_elems = static_cast<size_t>(kOutPerRank) * tokens;

    cudaStream_t comm_stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&comm_stream, cudaStreamNonBlocking));
    cublasHandle_t blas;
    CUBLAS_CHECK(cublasCreate(&blas));

    float* h_local = nullptr;
    CUDA_CHECK(cudaMallocHost(&h_local, local_elems * sizeof(float)));
    for (size_t i = 0; i < local_elems; ++i) h_local[i] = std::sin(0.01f * static_cast<float>(i) + rank);
    std::vector<float> w(w_elems);
    for (size_t i = 0; i < w_elems; ++i) w[i] = 0.01f * std::cos(0.003f * static_cast<float>(i) + rank);

    float *d_local, *d_full, *d_w, *d_y;
    CUDA_CHECK(cudaMalloc(&d_local, local_elems * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_full, full_elems * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_w, w_elems * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_y, y_elems * sizeof(float)));

    CUDA_CHECK(cudaMemcpy(d_w, w.data(), w_elems * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpyAsync(d_local, h_local, local_elems * sizeof(float), cudaMemcpyHostToDevice, comm_stream));
    NCCL_CHECK(ncclAllGather(d_local, d_full, local_elems, ncclFloat, comm, comm_stream));

    // Y (out_per_rank x tokens) = W_shard (out_per_rank x hidden) * X (hidden x tokens)
    const float one = 1.0f, zero = 0.0f;
    CUBLAS_CHECK(cublasSgemm(blas, CUBLAS_OP_N, CUBLAS_OP_N, kOutPerRank, tokens, kIn, &one,  // EXPECT: missing_sync
                             d_w, kOutPerRank, d_full, kIn, &zero, d_y, kOutPerRank));

    std::vector<float> y(y_elems);
    CUDA_CHECK(cudaMemcpy(y.data(), d_y, y_elems * sizeof(float), cudaMemcpyDeviceToHost));
    double local_sum = 0.0, global_sum = 0.0;
    for (float v : y) local_sum += v;
    MPI_Allreduce(&local_sum, &global_sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) std::printf("layer output checksum %.6e\n", global_sum);

    CUDA_CHECK(cudaStreamSynchronize(comm_stream));
    CUDA_CHECK(cudaFree(d_y));
    CUDA_CHECK(cudaFree(d_w));
    CUDA_CHECK(cudaFree(d_full));
    CUDA_CHECK(cudaFree(d_local));
    CUDA_CHECK(cudaFreeHost(h_local));
    CUBLAS_CHECK(cublasDestroy(blas));
    CUDA_CHECK(cudaStreamDestroy(comm_stream));
    NCCL_CHECK(ncclCommDestroy(comm));
    MPI_Finalize();
    return 0;
}

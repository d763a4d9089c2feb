// case: distributed matrix transpose with MPI_Ialltoall on device buffers; between the pack kernel and MPI_Ialltoall the only wait is MPI_Wait on an earlier MPI_Iallreduce, which does not wait for the GPU, so the pack kernel may still be writing d_send when MPI starts reading it.
// expect: missing_sync=1
#include <mpi.h>
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_OK(stmt)                                                                  \
    do {                                                                               \
        cudaError_t _e = (stmt);                                                       \
        if (_e != cudaSuccess) {                                                       \
            std::fprintf(stderr, "%s failed: %s\n", #stmt, cudaGetErrorString(_e));    \
            MPI_Abort(MPI_COMM_WORLD, 1);                                              \
            std::exit(1);                                                              \
        }                                                                              \
    } while (0)

// a: nloc x N rows of this rank. Block p of send is the nloc x nloc tile of columns
// [p*nloc, (p+1)*nloc), stored transposed so the receiver can copy it contiguously.
__global__ void pack_tiles(const double* __restrict__ a, double* __restrict__ send, int nloc, int N) {
    const long long idx = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (idx >= (long long)nloc * N) return;
    const int row = idx / N, col = idx % N;
    const int p = col / nloc, c = col % nloc;
    send[(long long)p * nloc * nloc + (long long)c * nloc + row] = a[idx];
}

// Tile p came from rank p and holds its rows as our columns.
__global__ void unpack_tiles(const double* __restrict__ recv, double* __restrict__ at, int nloc, int N) {
    const long long idx = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (idx >= (long long)nloc * N) return;
    const int p = idx / ((long long)nloc * nloc);
    const int rem = idx % ((long long)nloc * nloc);
    const int c = rem / nloc, row = rem % nloc;
    at[(long long)c * N + (long long)p * nloc + row] = recv[idx];
}

__global__ void sum_squares(const double* __restrict__ a, long long n, double* __restrict__ out) {
    double acc = 0.0;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
        acc += a[i] * a[i];
    atomicAdd(out, acc);
}

__global__ void make_twiddles(double* __restrict__ tw, int N) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < N) tw[k] = cos(6.283185307179586 * k / N);
}

__global__ void scale_columns(double* __restrict__ at, const double* __restrict__ tw, int nloc, int N, double s) {
    const long long idx = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (idx < (long long)nloc * N) at[idx] *= s * tw[idx % N];
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank, nprocs;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);

    const int N = 4096;
    if (N % nprocs != 0) {
        if (rank == 0) std::fprintf(stderr, "N must be divisible by the rank count\n");
        MPI_Finalize();
        return 1;
    }
    const int nloc = N / nprocs;
    const long long elems = (long long)nloc * N;
    const size_t bytes = elems * sizeof(double);

    std::vector<double> h_a(elems);
    for (long long k = 0; k < elems; ++k) {
        const long long gi = (long long)rank * nloc + k / N, gj = k % N;
        h_a[k] = static_cast<double>(gi * N + gj);
    }

    double *d_a, *d_send, *d_recv, *d_at, *d_tw, *d_sq;
    CUDA_OK(cudaMalloc(&d_a, bytes));
    CUDA_OK(cudaMalloc(&d_send, bytes));
    CUDA_OK(cudaMalloc(&d_recv, bytes));
    CUDA_OK(cudaMalloc(&d_at, bytes));
    CUDA_OK(cudaMalloc(&d_tw, N * sizeof(double)));
    CUDA_OK(cudaMalloc(&d_sq, sizeof(double)));
    CUDA_OK(cudaMemcpy(d_a, h_a.data(), bytes, cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemset(d_recv, 0, bytes));
    CUDA_OK(cudaMemset(d_sq, 0, sizeof(double)));

    cudaStream_t st;
    CUDA_OK(cudaStreamCreate(&st));
    const int tpb = 256;
    const int nblk = static_cast<int>((elems + tpb - 1) / tpb);

    // Global Frobenius norm, reduced in the background.
    sum_squares<<<120, tpb, 0, st>>>(d_a, elems, d_sq);
    CUDA_OK(cudaStreamSynchronize(st));
    double local_sq = 0.0, global_sq = 0.0;
    CUDA_OK(cudaMemcpy(&local_sq, d_sq, sizeof(double), cudaMemcpyDeviceToHost));
    MPI_Request norm_req;
    MPI_Iallreduce(&local_sq, &global_sq, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &norm_req);

    pack_tiles<<<nblk, tpb, 0, st>>>(d_a, d_send, nloc, N);
    MPI_Wait(&norm_req, MPI_STATUS_IGNORE);   // the norm is needed after the transpose anyway

    MPI_Request a2a_req;
    MPI_Ialltoall(d_send, nloc * nloc, MPI_DOUBLE, d_recv, nloc * nloc, MPI_DOUBLE, // EXPECT: missing_sync
                  MPI_COMM_WORLD, &a2a_req);
    make_twiddles<<<(N + tpb - 1) / tpb, tpb, 0, st>>>(d_tw, N);
    MPI_Wait(&a2a_req, MPI_STATUS_IGNORE);

    unpack_tiles<<<nblk, tpb, 0, st>>>(d_recv, d_at, nloc, N);
    scale_columns<<<nblk, tpb, 0, st>>>(d_at, d_tw, nloc, N, 1.0 / std::sqrt(global_sq));
    CUDA_OK(cudaStreamSynchronize(st));

    std::vector<double> h_at(elems);
    CUDA_OK(cudaMemcpy(h_at.data(), d_at, bytes, cudaMemcpyDeviceToHost));
    if (rank == 0) std::printf("at[0][1] = %.6e\n", h_at[1]);

    CUDA_OK(cudaFree(d_a));
    CUDA_OK(cudaFree(d_send));
    CUDA_OK(cudaFree(d_recv));
    CUDA_OK(cudaFree(d_at));
    CUDA_OK(cudaFree(d_tw));
    CUDA_OK(cudaFree(d_sq));
    CUDA_OK(cudaStreamDestroy(st));
    MPI_Finalize();
    return 0;
}

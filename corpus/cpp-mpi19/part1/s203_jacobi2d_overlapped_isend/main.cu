// case: 2-D Jacobi with row halos on a non-blocking stream; the top row is packed and synchronized before its MPI_Isend, but the bottom row's pack kernel is still running when MPI_Isend of d_bot_send starts.
// expect: missing_sync=1
#include <mpi.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <utility>
#include <vector>
#include "halo.h"

// Interior rows are 1..ny, rows 0 and ny+1 hold the neighbours' rows.
__global__ void jacobi_step(const double* u, double* unew, int nx, int ny) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y + 1;
    if (i > 0 && i < nx - 1 && j <= ny) {
        unew[j * nx + i] = 0.25 * (u[j * nx + i - 1] + u[j * nx + i + 1] +
                                   u[(j - 1) * nx + i] + u[(j + 1) * nx + i]);
    }
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    const int nx = 4096, ny = 1024, iters = 200;
    const int up = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    const int down = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
    const size_t field_bytes = (size_t)nx * (ny + 2) * sizeof(double);

    std::vector<double> h_u((size_t)nx * (ny + 2), 0.0);
    if (rank == 0)
        for (int i = 0; i < nx; ++i) h_u[i] = 1.0;  // hot top boundary

    double *d_u, *d_unew;
    CUDA_CHECK(cudaMalloc(&d_u, field_bytes));
    CUDA_CHECK(cudaMalloc(&d_unew, field_bytes));
    CUDA_CHECK(cudaMemcpy(d_u, h_u.data(), field_bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_unew, h_u.data(), field_bytes, cudaMemcpyHostToDevice));
    Halo h;
    halo_alloc(h, nx);
    CUDA_CHECK(cudaDeviceSynchronize());

    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    const int t1 = 256, b1 = (nx + t1 - 1) / t1;
    dim3 block(32, 8), grid((nx + 31) / 32, (ny + 7) / 8);

    for (int it = 0; it < iters; ++it) {
        MPI_Request reqs[4];
        post_halo_recvs(h, up, down, reqs);

        pack_row<<<b1, t1, 0, s>>>(d_u, h.d_top_send, nx, 1);
        CUDA_CHECK(cudaStreamSynchronize(s));
        MPI_Isend(h.d_top_send, nx, MPI_DOUBLE, up, 0, MPI_COMM_WORLD, &reqs[2]);
        // overlap: pack the bottom row while the top row is on the wire
        pack_row<<<b1, t1, 0, s>>>(d_u, h.d_bot_send, nx, ny);
        MPI_Isend(h.d_bot_send, nx, MPI_DOUBLE, down, 1, MPI_COMM_WORLD, &reqs[3]);  // EXPECT: missing_sync

        MPI_Waitall(4, reqs, MPI_STATUSES_IGNORE);
        if (up != MPI_PROC_NULL) unpack_row<<<b1, t1, 0, s>>>(d_u, h.d_top_recv, nx, 0);
        if (down != MPI_PROC_NULL) unpack_row<<<b1, t1, 0, s>>>(d_u, h.d_bot_recv, nx, ny + 1);
        jacobi_step<<<grid, block, 0, s>>>(d_u, d_unew, nx, ny);
        CUDA_CHECK(cudaStreamSynchronize(s));
        std::swap(d_u, d_unew);
    }

    CUDA_CHECK(cudaMemcpy(h_u.data(), d_u, field_bytes, cudaMemcpyDeviceToHost));
    double local = 0.0, total = 0.0;
    for (int j = 1; j <= ny; ++j)
        for (int i = 0; i < nx; ++i) local += h_u[(size_t)j * nx + i];
    MPI_Reduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) printf("heat content after %d sweeps: %g\n", iters, total);

    halo_free(h);
    CUDA_CHECK(cudaFree(d_u));
    CUDA_CHECK(cudaFree(d_unew));
    CUDA_CHECK(cudaStreamDestroy(s));
    MPI_Finalize();
    return 0;
}

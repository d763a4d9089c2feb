// case: 1-D upwind advection solver using HaloExchanger (halo_exchanger.h); to overlap, the first-row kernel that reads recv_buffer() was moved above ex.end(), so it reads the face while the MPI_Irecv posted in begin() is still in flight.
// expect: missing_sync=1
#include <mpi.h>
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "halo_exchanger.h"

#define CK(call)                                                                      \
    do {                                                                              \
        cudaError_t err_ = (call);                                                    \
        if (err_ != cudaSuccess) {                                                    \
            std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,                   \
                         cudaGetErrorString(err_));                                   \
            MPI_Abort(MPI_COMM_WORLD, 1);                                             \
            std::exit(EXIT_FAILURE);                                                  \
        }                                                                             \
    } while (0)

// u is ny rows of nx, row-major; row ny-1 is the top interior row.
__global__ void pack_top_row(const double* __restrict__ u, double* __restrict__ face, int nx, int ny) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < nx) face[i] = u[(ny - 1) * nx + i];
}

// Rows 1..ny-1 only need local data.
__global__ void advect_interior(const double* __restrict__ u, double* __restrict__ unew,
                                int nx, int ny, double cfl) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y + 1;
    if (i < nx && j < ny) {
        unew[j * nx + i] = u[j * nx + i] - cfl * (u[j * nx + i] - u[(j - 1) * nx + i]);
    }
}

// Row 0 takes its upwind value from the face received from the rank below.
__global__ void advect_first_row(const double* __restrict__ below, const double* __restrict__ u,
                                 double* __restrict__ unew, int nx, double cfl) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < nx) unew[i] = u[i] - cfl * (u[i] - below[i]);
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    int ndev = 1;
    CK(cudaGetDeviceCount(&ndev));
    CK(cudaSetDevice(rank % ndev));

    const int nx = 1024;
    const int ny = 256;
    const int nsteps = 200;
    const double cfl = 0.4;
    const size_t bytes = static_cast<size_t>(nx) * ny * sizeof(double);

    std::vector<double> h_u(static_cast<size_t>(nx) * ny);
    for (int j = 0; j < ny; ++j) {
        const double y = (rank * ny + j) / static_cast<double>(size * ny);
        for (int i = 0; i < nx; ++i) h_u[static_cast<size_t>(j) * nx + i] = std::exp(-100.0 * (y - 0.25) * (y - 0.25));
    }

    double* d_u = nullptr;
    double* d_unew = nullptr;
    CK(cudaMalloc(&d_u, bytes));
    CK(cudaMalloc(&d_unew, bytes));
    CK(cudaMemcpy(d_u, h_u.data(), bytes, cudaMemcpyHostToDevice));
    CK(cudaMemset(d_unew, 0, bytes));

    cudaStream_t stream;
    CK(cudaStreamCreate(&stream));

    {
        HaloExchanger ex(MPI_COMM_WORLD, nx);
        const dim3 block(256);
        const dim3 grid((nx + 255) / 256, ny - 1);
        const int row_blocks = (nx + 255) / 256;

        for (int step = 0; step < nsteps; ++step) {
            pack_top_row<<<row_blocks, 256, 0, stream>>>(d_u, ex.send_buffer(), nx, ny);
            CK(cudaStreamSynchronize(stream));

            ex.begin(step);
            advect_interior<<<grid, block, 0, stream>>>(d_u, d_unew, nx, ny, cfl);
            advect_first_row<<<row_blocks, 256, 0, stream>>>(ex.recv_buffer(), d_u, d_unew, nx, cfl); // EXPECT: missing_sync
            ex.end();

            CK(cudaMemcpyAsync(d_u, d_unew, bytes, cudaMemcpyDeviceToDevice, stream));
        }
        CK(cudaStreamSynchronize(stream));
    }

    CK(cudaMemcpy(h_u.data(), d_u, bytes, cudaMemcpyDeviceToHost));
    double local_mass = 0.0, mass = 0.0;
    for (double v : h_u) local_mass += v;
    MPI_Reduce(&local_mass, &mass, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) std::printf("mass after %d steps: %.12e\n", nsteps, mass);

    CK(cudaFree(d_u));
    CK(cudaFree(d_unew));
    CK(cudaStreamDestroy(stream));
    MPI_Finalize();
    return 0;
}

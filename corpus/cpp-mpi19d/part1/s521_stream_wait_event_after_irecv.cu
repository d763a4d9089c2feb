// case: halo exchange that tries to order the boundary kernel after MPI_Irecv with cudaEventRecord on the comm stream plus cudaStreamWaitEvent on the compute stream; the event knows nothing of the MPI request, so the boundary kernel reads d_halo while the receive is still in flight (MPI_Wait only comes after it).
// expect: missing_sync=1
#include <mpi.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(call)                                                                   \
    do {                                                                              \
        cudaError_t code = (call);                                                    \
        if (code != cudaSuccess) {                                                    \
            std::fprintf(stderr, "CUDA %s at %s:%d\n", cudaGetErrorString(code), __FILE__, __LINE__); \
            MPI_Abort(MPI_COMM_WORLD, 1);                                             \
            std::exit(1);                                                             \
        }                                                                             \
    } while (0)

__global__ void pack_last_row(const double* __restrict__ u, double* __restrict__ row, int nx, int ny) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < nx) row[i] = u[(ny - 1) * nx + i];
}

__global__ void sweep_interior(const double* __restrict__ u, double* __restrict__ un, int nx, int ny, double w) {
    int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y + 1;
    if (i > 0 && i < nx - 1 && j < ny) {
        const int c = j * nx + i;
        un[c] = (1.0 - w) * u[c] + w * 0.25 * (u[c - 1] + u[c + 1] + u[c - nx] + (j + 1 < ny ? u[c + nx] : 0.0));
    }
}

__global__ void sweep_first_row(const double* __restrict__ halo, const double* __restrict__ u,
                                double* __restrict__ un, int nx, double w) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i > 0 && i < nx - 1) un[i] = (1.0 - w) * u[i] + w * 0.25 * (u[i - 1] + u[i + 1] + halo[i] + u[i + nx]);
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int north = (rank + 1) % size, south = (rank - 1 + size) % size;

    const int nx = 4096, ny = 1024, sweeps = 400;
    const double omega = 0.8;
    const size_t cells = static_cast<size_t>(nx) * ny;

    std::vector<double> init(cells);
    for (size_t c = 0; c < cells; ++c) init[c] = static_cast<double>((c * 2654435761u) % 1000) / 1000.0;

    double *d_u, *d_un, *d_row, *d_halo;
    CHECK(cudaMalloc(&d_u, cells * sizeof(double)));
    CHECK(cudaMalloc(&d_un, cells * sizeof(double)));
    CHECK(cudaMalloc(&d_row, nx * sizeof(double)));
    CHECK(cudaMalloc(&d_halo, nx * sizeof(double)));
    CHECK(cudaMemcpy(d_u, init.data(), cells * sizeof(double), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_un, init.data(), cells * sizeof(double), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(d_halo, 0, nx * sizeof(double)));

    cudaStream_t s_compute, s_comm;
    CHECK(cudaStreamCreateWithFlags(&s_compute, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithFlags(&s_comm, cudaStreamNonBlocking));
    cudaEvent_t ev_halo;
    CHECK(cudaEventCreateWithFlags(&ev_halo, cudaEventDisableTiming));

    const int rb = (nx + 255) / 256;
    for (int it = 0; it < sweeps; ++it) {
        pack_last_row<<<rb, 256, 0, s_comm>>>(d_u, d_row, nx, ny);
        CHECK(cudaStreamSynchronize(s_comm));

        MPI_Request rreq, sreq;
        MPI_Irecv(d_halo, nx, MPI_DOUBLE, south, it, MPI_COMM_WORLD, &rreq);
        MPI_Isend(d_row, nx, MPI_DOUBLE, north, it, MPI_COMM_WORLD, &sreq);

        sweep_interior<<<dim3(rb, ny - 1), 256, 0, s_compute>>>(d_u, d_un, nx, ny, omega);

        // Make the compute stream wait for the halo before the first row.
        CHECK(cudaEventRecord(ev_halo, s_comm));
        CHECK(cudaStreamWaitEvent(s_compute, ev_halo, 0));
        sweep_first_row<<<rb, 256, 0, s_compute>>>(d_halo, d_u, d_un, nx, omega); // EXPECT: missing_sync

        MPI_Wait(&rreq, MPI_STATUS_IGNORE);
        MPI_Wait(&sreq, MPI_STATUS_IGNORE);
        CHECK(cudaMemcpyAsync(d_u, d_un, cells * sizeof(double), cudaMemcpyDeviceToDevice, s_compute));
        CHECK(cudaStreamSynchronize(s_compute));
    }

    CHECK(cudaMemcpy(init.data(), d_u, cells * sizeof(double), cudaMemcpyDeviceToHost));
    double sum = 0.0, gsum = 0.0;
    for (double v : init) sum += v;
    MPI_Allreduce(&sum, &gsum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) std::printf("sum after %d sweeps: %.8e\n", sweeps, gsum);

    CHECK(cudaEventDestroy(ev_halo));
    CHECK(cudaStreamDestroy(s_compute));
    CHECK(cudaStreamDestroy(s_comm));
    CHECK(cudaFree(d_u));
    CHECK(cudaFree(d_un));
    CHECK(cudaFree(d_row));
    CHECK(cudaFree(d_halo));
    MPI_Finalize();
    return 0;
}

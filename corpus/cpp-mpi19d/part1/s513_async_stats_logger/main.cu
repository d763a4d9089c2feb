// case: explicit diffusion solver that logs field statistics to a monitor rank through AsyncStatsLogger (stats_logger.cuh), whose post() sends stats_buffer() with MPI_Isend and waits for the previous send only inside the next post(); the next logged step's field_stats kernel overwrites stats_buffer() while that MPI_Isend may still be reading it.
// expect: missing_sync=1
#include <mpi.h>
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "stats_logger.cuh"

#define CUCHK(x)                                                                      \
    do {                                                                              \
        cudaError_t e__ = (x);                                                        \
        if (e__ != cudaSuccess) {                                                     \
            std::fprintf(stderr, "cuda: %s at %s:%d\n", cudaGetErrorString(e__), __FILE__, __LINE__); \
            MPI_Abort(MPI_COMM_WORLD, 4);                                             \
            std::exit(4);                                                             \
        }                                                                             \
    } while (0)

__global__ void relax(const double* __restrict__ u, double* __restrict__ un, int n, double nu) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i > 0 && i < n - 1) un[i] = u[i] + nu * (u[i - 1] - 2.0 * u[i] + u[i + 1]);
    else if (i == 0 || i == n - 1) un[i] = 0.0;
}

static void run_monitor(MPI_Comm comm, int nrecords) {
    std::vector<double> rec(kNumStats);
    for (int k = 0; k < nrecords; ++k) {
        MPI_Status st;
        MPI_Recv(rec.data(), kNumStats, MPI_DOUBLE, MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &st);
        std::printf("[monitor] rank %d step %d: min %.4e max %.4e mean-sum %.6e l2 %.6e\n",
                    st.MPI_SOURCE, st.MPI_TAG, rec[0], rec[1], rec[2], std::sqrt(rec[3]));
    }
}

static void run_solver(MPI_Comm comm, int rank, int monitor, int nsteps, int log_every) {
    const int n = 1 << 22;
    const size_t bytes = n * sizeof(double);
    const double nu = 0.25;

    std::vector<double> init(n);
    for (int i = 0; i < n; ++i) init[i] = std::sin(3.14159265358979 * i / (n - 1)) * (1.0 + 0.1 * rank);

    double *d_u, *d_un;
    CUCHK(cudaMalloc(&d_u, bytes));
    CUCHK(cudaMalloc(&d_un, bytes));
    CUCHK(cudaMemcpy(d_u, init.data(), bytes, cudaMemcpyHostToDevice));
    CUCHK(cudaMemset(d_un, 0, bytes));

    cudaStream_t s;
    CUCHK(cudaStreamCreate(&s));
    AsyncStatsLogger logger(comm, monitor);
    const int nb = (n + 255) / 256;

    for (int step = 0; step < nsteps; ++step) {
        relax<<<nb, 256, 0, s>>>(d_u, d_un, n, nu);
        CUCHK(cudaMemcpyAsync(d_u, d_un, bytes, cudaMemcpyDeviceToDevice, s));
        if (step % log_every == 0) {
            field_stats<<<1, 256, 0, s>>>(d_u, n, logger.stats_buffer()); // EXPECT: missing_sync
            logger.post(s, step);
        }
    }
    logger.drain();
    CUCHK(cudaStreamSynchronize(s));

    CUCHK(cudaFree(d_u));
    CUCHK(cudaFree(d_un));
    CUCHK(cudaStreamDestroy(s));
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2) {
        std::fprintf(stderr, "needs a monitor rank and at least one solver rank\n");
        MPI_Finalize();
        return 1;
    }

    const int nsteps = 1000, log_every = 50;
    const int monitor = size - 1;
    const int records_per_rank = (nsteps + log_every - 1) / log_every;

    if (rank == monitor) {
        run_monitor(MPI_COMM_WORLD, records_per_rank * (size - 1));
    } else {
        int ndev = 1;
        CUCHK(cudaGetDeviceCount(&ndev));
        CUCHK(cudaSetDevice(rank % ndev));
        run_solver(MPI_COMM_WORLD, rank, monitor, nsteps, log_every);
    }

    MPI_Finalize();
    return 0;
}

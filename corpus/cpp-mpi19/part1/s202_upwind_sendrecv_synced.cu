// case: 1-D periodic upwind advection with CUDA-aware MPI on the legacy default stream; cudaDeviceSynchronize after pack_edge makes d_edge complete before MPI_Sendrecv reads it (near miss of s201).
// expect: none
#include <mpi.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <utility>
#include <vector>

#define CHECK(call)                                                            \
    do {                                                                       \
        cudaError_t err_ = (call);                                             \
        if (err_ != cudaSuccess) {                                             \
            fprintf(stderr, "CUDA error %s at %s:%d\n",                        \
                    cudaGetErrorString(err_), __FILE__, __LINE__);             \
            MPI_Abort(MPI_COMM_WORLD, 1);                                      \
        }                                                                      \
    } while (0)

// The right-most cell of this rank is the left ghost of the next rank.
__global__ void pack_edge(const double* u, double* edge, int n) {
    if (blockIdx.x == 0 && threadIdx.x == 0) edge[0] = u[n - 1];
}

__global__ void advect_upwind(const double* u, const double* ghost_left,
                              double* unew, int n, double courant) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        double left = (i == 0) ? ghost_left[0] : u[i - 1];
        unew[i] = u[i] - courant * (u[i] - left);
    }
}

__global__ void total_mass(const double* u, double* mass, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(mass, u[i]);
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int ndev = 1;
    CHECK(cudaGetDeviceCount(&ndev));
    CHECK(cudaSetDevice(rank % ndev));

    const int n = 1 << 20;
    const int steps = 500;
    const double courant = 0.4;
    const int right = (rank + 1) % size;
    const int left = (rank - 1 + size) % size;

    std::vector<double> h_u(n);
    for (int i = 0; i < n; ++i) {
        double x = (double)(rank * n + i) / ((double)n * size);
        h_u[i] = (x > 0.25 && x < 0.5) ? 1.0 : 0.0;
    }

    double *d_u, *d_unew, *d_edge, *d_ghost, *d_mass;
    CHECK(cudaMalloc(&d_u, n * sizeof(double)));
    CHECK(cudaMalloc(&d_unew, n * sizeof(double)));
    CHECK(cudaMalloc(&d_edge, sizeof(double)));
    CHECK(cudaMalloc(&d_ghost, sizeof(double)));
    CHECK(cudaMalloc(&d_mass, sizeof(double)));
    CHECK(cudaMemcpy(d_u, h_u.data(), n * sizeof(double), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(d_unew, 0, n * sizeof(double)));
    CHECK(cudaMemset(d_edge, 0, sizeof(double)));
    CHECK(cudaMemset(d_ghost, 0, sizeof(double)));
    CHECK(cudaDeviceSynchronize());

    const int threads = 256;
    const int blocks = (n + threads - 1) / threads;
    double global_mass = 0.0;
    for (int step = 0; step < steps; ++step) {
        pack_edge<<<1, 32>>>(d_u, d_edge, n);
        CHECK(cudaDeviceSynchronize());
        MPI_Sendrecv(d_edge, 1, MPI_DOUBLE, right, 0, d_ghost, 1, MPI_DOUBLE, left, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        advect_upwind<<<blocks, threads>>>(d_u, d_ghost, d_unew, n, courant);
        std::swap(d_u, d_unew);

        // conservation check every step: the blocking copy waits for the legacy stream
        CHECK(cudaMemset(d_mass, 0, sizeof(double)));
        total_mass<<<blocks, threads>>>(d_u, d_mass, n);
        double local_mass = 0.0;
        CHECK(cudaMemcpy(&local_mass, d_mass, sizeof(double), cudaMemcpyDeviceToHost));
        MPI_Allreduce(&local_mass, &global_mass, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    if (rank == 0) printf("mass after %d steps: %.6f\n", steps, global_mass);

    CHECK(cudaFree(d_u));
    CHECK(cudaFree(d_unew));
    CHECK(cudaFree(d_edge));
    CHECK(cudaFree(d_ghost));
    CHECK(cudaFree(d_mass));
    MPI_Finalize();
    return 0;
}

// case: ensemble of two-block finite-volume runs, one block per rank of a pair; the face flux kernel runs on a non-blocking stream while the edge states are exchanged, and MPI_Waitall (which waits for no CUDA work) is all that precedes the MPI_Sendrecv of d_face_flux that kernel writes.
// expect: missing_sync=1
#include <mpi.h>
#include <cuda_runtime.h>
#include <cstdio>
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

// side 0: the interface is at the right end of this block, side 1: at the left end
__global__ void pack_edge(const double* u, double* edge, int n, int side) {
    if (threadIdx.x == 0 && blockIdx.x == 0) edge[0] = side == 0 ? u[n - 1] : u[0];
}

// interior fluxes f[i] between cells i-1 and i, plus a one-sided estimate at the interface
__global__ void compute_fluxes(const double* u, double* flux, double* face_flux, int n, int side, double nu) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i > 0 && i < n) flux[i] = -nu * (u[i] - u[i - 1]);
    if (i == 0) face_flux[0] = side == 0 ? -nu * (u[n - 1] - u[n - 2]) : -nu * (u[1] - u[0]);
}

__global__ void update(double* u, const double* flux, const double* edge_in, const double* face_mine,
                       const double* face_theirs, int n, int side, double nu, double dt) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double face = 0.5 * (face_mine[0] + face_theirs[0]) - 0.5 * nu * (side == 0 ? edge_in[0] - u[n - 1] : u[0] - edge_in[0]);
    double fl = (i == 0) ? (side == 1 ? face : 0.0) : flux[i];
    double fr = (i == n - 1) ? (side == 0 ? face : 0.0) : flux[i + 1];
    u[i] -= dt * (fr - fl);
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size % 2 != 0) {
        if (rank == 0) fprintf(stderr, "needs an even number of ranks\n");
        MPI_Finalize();
        return 1;
    }
    const int partner = rank ^ 1, side = rank % 2;
    const int n = 1 << 16, steps = 200;
    const double nu = 0.1, dt = 0.5;

    std::vector<double> h_u(n);
    for (int i = 0; i < n; ++i) h_u[i] = side == 0 ? 1.0 : 0.0;
    double *d_u, *d_flux, *d_edge_out, *d_edge_in, *d_face_flux, *d_face_in;
    CHECK(cudaMalloc(&d_u, n * sizeof(double)));
    CHECK(cudaMalloc(&d_flux, (n + 1) * sizeof(double)));
    CHECK(cudaMalloc(&d_edge_out, sizeof(double)));
    CHECK(cudaMalloc(&d_edge_in, sizeof(double)));
    CHECK(cudaMalloc(&d_face_flux, sizeof(double)));
    CHECK(cudaMalloc(&d_face_in, sizeof(double)));
    CHECK(cudaMemcpy(d_u, h_u.data(), n * sizeof(double), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(d_flux, 0, (n + 1) * sizeof(double)));
    CHECK(cudaMemset(d_edge_in, 0, sizeof(double)));
    CHECK(cudaMemset(d_face_flux, 0, sizeof(double)));
    CHECK(cudaMemset(d_face_in, 0, sizeof(double)));
    CHECK(cudaDeviceSynchronize());

    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    const int tb = 256, nb = (n + tb - 1) / tb;
    for (int step = 0; step < steps; ++step) {
        pack_edge<<<1, 32, 0, s>>>(d_u, d_edge_out, n, side);
        CHECK(cudaStreamSynchronize(s));
        MPI_Request reqs[2];
        MPI_Irecv(d_edge_in, 1, MPI_DOUBLE, partner, 0, MPI_COMM_WORLD, &reqs[0]);
        MPI_Isend(d_edge_out, 1, MPI_DOUBLE, partner, 0, MPI_COMM_WORLD, &reqs[1]);
        compute_fluxes<<<nb, tb, 0, s>>>(d_u, d_flux, d_face_flux, n, side, nu);
        MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
        MPI_Sendrecv(d_face_flux, 1, MPI_DOUBLE, partner, 1, d_face_in, 1, MPI_DOUBLE, partner, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);  // EXPECT: missing_sync
        update<<<nb, tb, 0, s>>>(d_u, d_flux, d_edge_in, d_face_flux, d_face_in, n, side, nu, dt);
        CHECK(cudaStreamSynchronize(s));
    }

    CHECK(cudaMemcpy(h_u.data(), d_u, n * sizeof(double), cudaMemcpyDeviceToHost));
    double local = 0.0, total = 0.0;
    for (double v : h_u) local += v;
    MPI_Allreduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) printf("conserved total: %.10f (expected %.1f)\n", total, (double)n * size / 2);

    CHECK(cudaStreamDestroy(s));
    CHECK(cudaFree(d_u));
    CHECK(cudaFree(d_flux));
    CHECK(cudaFree(d_edge_out));
    CHECK(cudaFree(d_edge_in));
    CHECK(cudaFree(d_face_flux));
    CHECK(cudaFree(d_face_in));
    MPI_Finalize();
    return 0;
}

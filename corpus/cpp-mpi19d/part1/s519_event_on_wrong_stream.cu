// case: two-stream stencil step where the face is packed on the comm stream and the interior runs on the compute stream; the host synchronizes ev_interior (recorded on the compute stream) instead of ev_packed before MPI_Sendrecv reads d_face, which the pack kernel may still be writing.
// expect: missing_sync=1
#include <mpi.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_RT(call)                                                                 \
    do {                                                                              \
        const cudaError_t st_ = (call);                                               \
        if (st_ != cudaSuccess) {                                                     \
            std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(st_)); \
            MPI_Abort(MPI_COMM_WORLD, 1);                                             \
            std::exit(1);                                                             \
        }                                                                             \
    } while (0)

__global__ void pack_face(const double* __restrict__ u, double* __restrict__ face, int nx, int ny) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < nx) face[i] = u[(ny - 1) * nx + i];
}

__global__ void interior(const double* __restrict__ u, double* __restrict__ un, int nx, int ny, double k) {
    int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y + 1;
    if (i > 0 && i < nx - 1 && j < ny - 1) {
        const int c = j * nx + i;
        un[c] = u[c] + k * (u[c - 1] + u[c + 1] + u[c - nx] + u[c + nx] - 4.0 * u[c]);
    }
}

__global__ void apply_halo(const double* __restrict__ halo, const double* __restrict__ u, double* __restrict__ un,
                           int nx, double k) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i > 0 && i < nx - 1) un[i] = u[i] + k * (u[i - 1] + u[i + 1] + halo[i] + u[i + nx] - 4.0 * u[i]);
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int up = (rank + 1) % size, down = (rank - 1 + size) % size;

    const int nx = 8192, ny = 512, steps = 300;
    const double kappa = 0.2;
    const size_t cells = static_cast<size_t>(nx) * ny;

    std::vector<double> h(cells, 0.0);
    for (int i = nx / 3; i < 2 * nx / 3; ++i) h[static_cast<size_t>(ny / 2) * nx + i] = 100.0;

    double *d_u, *d_un, *d_face, *d_halo;
    CUDA_RT(cudaMalloc(&d_u, cells * sizeof(double)));
    CUDA_RT(cudaMalloc(&d_un, cells * sizeof(double)));
    CUDA_RT(cudaMalloc(&d_face, nx * sizeof(double)));
    CUDA_RT(cudaMalloc(&d_halo, nx * sizeof(double)));
    CUDA_RT(cudaMemcpy(d_u, h.data(), cells * sizeof(double), cudaMemcpyHostToDevice));
    CUDA_RT(cudaMemcpy(d_un, h.data(), cells * sizeof(double), cudaMemcpyHostToDevice));
    CUDA_RT(cudaMemset(d_halo, 0, nx * sizeof(double)));

    cudaStream_t s_compute, s_comm;
    CUDA_RT(cudaStreamCreateWithFlags(&s_compute, cudaStreamNonBlocking));
    CUDA_RT(cudaStreamCreateWithFlags(&s_comm, cudaStreamNonBlocking));
    cudaEvent_t ev_interior, ev_packed, ev_committed;
    CUDA_RT(cudaEventCreateWithFlags(&ev_interior, cudaEventDisableTiming));
    CUDA_RT(cudaEventCreateWithFlags(&ev_packed, cudaEventDisableTiming));
    CUDA_RT(cudaEventCreateWithFlags(&ev_committed, cudaEventDisableTiming));
    CUDA_RT(cudaEventRecord(ev_committed, s_compute));

    const int rb = (nx + 255) / 256;
    const dim3 grid(rb, ny - 2);

    for (int step = 0; step < steps; ++step) {
        // The face is read from the state the previous step committed.
        CUDA_RT(cudaStreamWaitEvent(s_comm, ev_committed, 0));
        pack_face<<<rb, 256, 0, s_comm>>>(d_u, d_face, nx, ny);
        CUDA_RT(cudaEventRecord(ev_packed, s_comm));

        interior<<<grid, 256, 0, s_compute>>>(d_u, d_un, nx, ny, kappa);
        CUDA_RT(cudaEventRecord(ev_interior, s_compute));

        CUDA_RT(cudaEventSynchronize(ev_interior));
        MPI_Sendrecv(d_face, nx, MPI_DOUBLE, up, step, d_halo, nx, MPI_DOUBLE, down, step, // EXPECT: missing_sync
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);

        apply_halo<<<rb, 256, 0, s_compute>>>(d_halo, d_u, d_un, nx, kappa);
        CUDA_RT(cudaStreamWaitEvent(s_compute, ev_packed, 0));   // pack has read d_u before it is overwritten
        CUDA_RT(cudaMemcpyAsync(d_u, d_un, cells * sizeof(double), cudaMemcpyDeviceToDevice, s_compute));
        CUDA_RT(cudaEventRecord(ev_committed, s_compute));
    }
    CUDA_RT(cudaStreamSynchronize(s_comm));
    CUDA_RT(cudaStreamSynchronize(s_compute));

    CUDA_RT(cudaMemcpy(h.data(), d_u, cells * sizeof(double), cudaMemcpyDeviceToHost));
    double e = 0.0, eg = 0.0;
    for (double v : h) e += v;
    MPI_Reduce(&e, &eg, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) std::printf("energy %.6e\n", eg);

    CUDA_RT(cudaEventDestroy(ev_interior));
    CUDA_RT(cudaEventDestroy(ev_packed));
    CUDA_RT(cudaEventDestroy(ev_committed));
    CUDA_RT(cudaStreamDestroy(s_compute));
    CUDA_RT(cudaStreamDestroy(s_comm));
    CUDA_RT(cudaFree(d_u));
    CUDA_RT(cudaFree(d_un));
    CUDA_RT(cudaFree(d_face));
    CUDA_RT(cudaFree(d_halo));
    MPI_Finalize();
    return 0;
}

// case: compute ranks send a checkpoint of d_state to the I/O rank with MPI_Isend and overlap it with a diagnostics kernel that only reads d_state (two reads never race); the kernel that updates d_state is launched after MPI_Wait (near miss of s231).
// expect: none
#include <mpi.h>
#include <cuda_runtime.h>
#include <cmath>
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

static const int kIoRank = 0;

__global__ void init_state(double* q, int n, int rank) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) q[i] = exp(-0.0001 * (double)(i - n / 2) * (i - n / 2)) * (rank + 1);
}

__global__ void rhs(const double* q, double* dq, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) dq[i] = q[(i + 1) % n] - 2.0 * q[i] + q[(i - 1 + n) % n];
}

__global__ void energy(const double* q, double* e, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(e, 0.5 * q[i] * q[i]);
}

__global__ void advance(double* q, const double* dq, int n, double dt) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) q[i] += dt * dq[i];
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int n = 1 << 20, nsteps = 400, ckpt_every = 100;
    const double dt = 0.2;

    if (rank == kIoRank) {
        std::vector<double> h_ckpt(n);
        for (int step = 0; step < nsteps; step += ckpt_every) {
            double norm = 0.0;
            for (int r = 0; r < size; ++r) {
                if (r == kIoRank) continue;
                MPI_Recv(h_ckpt.data(), n, MPI_DOUBLE, r, step, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                for (int i = 0; i < n; ++i) norm += h_ckpt[i] * h_ckpt[i];
            }
            printf("checkpoint %d: |q|^2 = %.6e\n", step, norm);
        }
    } else {
        cudaStream_t s;
        CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
        double *d_state, *d_rhs, *d_energy, *h_energy;
        CHECK(cudaMalloc(&d_state, n * sizeof(double)));
        CHECK(cudaMalloc(&d_rhs, n * sizeof(double)));
        CHECK(cudaMalloc(&d_energy, sizeof(double)));
        CHECK(cudaMallocHost(&h_energy, sizeof(double)));
        const int tb = 256, nb = (n + tb - 1) / tb;
        init_state<<<nb, tb, 0, s>>>(d_state, n, rank);

        for (int step = 0; step < nsteps; ++step) {
            rhs<<<nb, tb, 0, s>>>(d_state, d_rhs, n);
            if (step % ckpt_every == 0) {
                CHECK(cudaStreamSynchronize(s));
                MPI_Request req;
                MPI_Isend(d_state, n, MPI_DOUBLE, kIoRank, step, MPI_COMM_WORLD, &req);
                CHECK(cudaMemsetAsync(d_energy, 0, sizeof(double), s));
                energy<<<nb, tb, 0, s>>>(d_state, d_energy, n);  // reads d_state, as the send does
                CHECK(cudaMemcpyAsync(h_energy, d_energy, sizeof(double), cudaMemcpyDeviceToHost, s));
                MPI_Wait(&req, MPI_STATUS_IGNORE);
                CHECK(cudaStreamSynchronize(s));
                if (rank == 1) printf("step %d energy %.6e\n", step, *h_energy);
            }
            advance<<<nb, tb, 0, s>>>(d_state, d_rhs, n, dt);
        }
        CHECK(cudaStreamSynchronize(s));
        CHECK(cudaFree(d_state));
        CHECK(cudaFree(d_rhs));
        CHECK(cudaFree(d_energy));
        CHECK(cudaFreeHost(h_energy));
        CHECK(cudaStreamDestroy(s));
    }
    MPI_Finalize();
    return 0;
}

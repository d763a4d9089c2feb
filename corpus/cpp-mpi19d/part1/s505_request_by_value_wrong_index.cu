// case: particle migration around a ring where start_recv/start_send return their MPI_Request by value into reqs[2]; the step waits on reqs[1] (the send) instead of reqs[0], so insert_arrivals reads d_in while the MPI_Irecv that fills it is still in flight.
// expect: missing_sync=1
#include <mpi.h>
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK_CUDA(call)                                                          \
    do {                                                                          \
        const cudaError_t e = (call);                                             \
        if (e != cudaSuccess) {                                                   \
            std::fprintf(stderr, "[%s:%d] %s\n", __FILE__, __LINE__,              \
                         cudaGetErrorString(e));                                  \
            MPI_Abort(MPI_COMM_WORLD, 3);                                         \
            std::exit(3);                                                         \
        }                                                                         \
    } while (0)

static MPI_Request start_recv(double* buf, int count, int src, int tag, MPI_Comm comm) {
    MPI_Request req;
    MPI_Irecv(buf, count, MPI_DOUBLE, src, tag, comm, &req);
    return req;
}

static MPI_Request start_send(const double* buf, int count, int dst, int tag, MPI_Comm comm) {
    MPI_Request req;
    MPI_Isend(buf, count, MPI_DOUBLE, dst, tag, comm, &req);
    return req;
}

// Particles whose x left [xlo, xhi) are copied into the outgoing slots (NaN marks an empty slot)
// and their own slot is freed.
__global__ void pack_leaving(double* __restrict__ x, double* __restrict__ out, int* __restrict__ nout,
                             int n, int cap, double xhi) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && x[i] >= xhi) {
        int slot = atomicAdd(nout, 1);
        if (slot < cap) {
            out[slot] = x[i] - xhi;
            x[i] = NAN;
        }
    }
}

__global__ void clear_slots(double* __restrict__ out, int cap) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < cap) out[i] = NAN;
}

__global__ void drift(double* __restrict__ x, const double* __restrict__ v, int n, double dt) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && x[i] == x[i]) x[i] += v[i] * dt;
}

// Each arrival takes a free (NaN) slot; the scan is serial per block for simplicity.
__global__ void insert_arrivals(const double* __restrict__ in, double* __restrict__ x, int n, int cap) {
    if (blockIdx.x != 0 || threadIdx.x != 0) return;
    int slot = 0;
    for (int k = 0; k < cap; ++k) {
        if (in[k] != in[k]) continue;
        while (slot < n && x[slot] == x[slot]) ++slot;
        if (slot == n) return;
        x[slot] = in[k];
    }
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int left = (rank + size - 1) % size;
    const int right = (rank + 1) % size;

    const int n = 1 << 18;
    const int cap = 4096;
    const double width = 1.0, dt = 1e-3;
    const int nsteps = 100;

    std::vector<double> hx(n), hv(n);
    for (int i = 0; i < n; ++i) {
        hx[i] = (i < n / 2) ? width * (i + 0.5) / (n / 2) : NAN;
        hv[i] = 0.5 + 0.5 * std::sin(0.001 * i);
    }

    double *d_x, *d_v, *d_out, *d_in;
    int* d_nout;
    CHECK_CUDA(cudaMalloc(&d_x, n * sizeof(double)));
    CHECK_CUDA(cudaMalloc(&d_v, n * sizeof(double)));
    CHECK_CUDA(cudaMalloc(&d_out, cap * sizeof(double)));
    CHECK_CUDA(cudaMalloc(&d_in, cap * sizeof(double)));
    CHECK_CUDA(cudaMalloc(&d_nout, sizeof(int)));
    CHECK_CUDA(cudaMemcpy(d_x, hx.data(), n * sizeof(double), cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(d_v, hv.data(), n * sizeof(double), cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemset(d_in, 0, cap * sizeof(double)));

    cudaStream_t s;
    CHECK_CUDA(cudaStreamCreate(&s));
    const int tb = 256, nb = (n + tb - 1) / tb, cb = (cap + tb - 1) / tb;

    for (int step = 0; step < nsteps; ++step) {
        clear_slots<<<cb, tb, 0, s>>>(d_out, cap);
        CHECK_CUDA(cudaMemsetAsync(d_nout, 0, sizeof(int), s));
        pack_leaving<<<nb, tb, 0, s>>>(d_x, d_out, d_nout, n, cap, width);
        CHECK_CUDA(cudaStreamSynchronize(s));

        MPI_Request reqs[2];
        reqs[0] = start_recv(d_in, cap, left, step, MPI_COMM_WORLD);
        reqs[1] = start_send(d_out, cap, right, step, MPI_COMM_WORLD);

        drift<<<nb, tb, 0, s>>>(d_x, d_v, n, dt);

        MPI_Wait(&reqs[1], MPI_STATUS_IGNORE);   // arrivals are in d_in now
        insert_arrivals<<<1, 1, 0, s>>>(d_in, d_x, n, cap); // EXPECT: missing_sync
        MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
        CHECK_CUDA(cudaStreamSynchronize(s));
    }

    CHECK_CUDA(cudaMemcpy(hx.data(), d_x, n * sizeof(double), cudaMemcpyDeviceToHost));
    double local = 0.0, total = 0.0;
    for (double v : hx) local += (v == v) ? 1.0 : 0.0;
    MPI_Reduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) std::printf("particles alive: %.0f\n", total);

    CHECK_CUDA(cudaFree(d_x));
    CHECK_CUDA(cudaFree(d_v));
    CHECK_CUDA(cudaFree(d_out));
    CHECK_CUDA(cudaFree(d_in));
    CHECK_CUDA(cudaFree(d_nout));
    CHECK_CUDA(cudaStreamDestroy(s));
    MPI_Finalize();
    return 0;
}

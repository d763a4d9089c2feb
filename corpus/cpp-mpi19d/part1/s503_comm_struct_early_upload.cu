// case: recursive-doubling reduction of an energy histogram staged through pinned buffers, with requests kept in a struct Comm passed by pointer to post_recv/post_send/comm_wait; the upload of h_recv to the device is enqueued before comm_wait() completes the MPI_Irecv that fills h_recv.
// expect: missing_sync=1
#include <mpi.h>
#include <cuda_runtime.h>
#include <cassert>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#define CUDA_CHECK(expr)                                                             \
    do {                                                                             \
        cudaError_t status_ = (expr);                                                \
        if (status_ != cudaSuccess) {                                                \
            std::fprintf(stderr, "CUDA error %s at %s:%d\n",                         \
                         cudaGetErrorString(status_), __FILE__, __LINE__);           \
            MPI_Abort(MPI_COMM_WORLD, EXIT_FAILURE);                                 \
            std::exit(EXIT_FAILURE);                                                 \
        }                                                                            \
    } while (0)

struct Comm {
    MPI_Request r[4];
    int n;
    MPI_Comm comm;
};

static void comm_init(Comm* c, MPI_Comm comm) {
    for (int i = 0; i < 4; ++i) c->r[i] = MPI_REQUEST_NULL;
    c->n = 0;
    c->comm = comm;
}

static void post_recv(Comm* c, double* buf, int count, int src, int tag) {
    assert(c->n < 4);
    MPI_Irecv(buf, count, MPI_DOUBLE, src, tag, c->comm, &c->r[c->n]);
    c->n += 1;
}

static void post_send(Comm* c, const double* buf, int count, int dst, int tag) {
    assert(c->n < 4);
    MPI_Isend(buf, count, MPI_DOUBLE, dst, tag, c->comm, &c->r[c->n]);
    c->n += 1;
}

static void comm_wait(Comm* c) {
    MPI_Waitall(c->n, c->r, MPI_STATUSES_IGNORE);
    c->n = 0;
}

__global__ void histogram(const float* __restrict__ energy, int n, double* __restrict__ hist,
                          int nbins, float emax) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        int b = static_cast<int>(energy[i] / emax * nbins);
        b = b < 0 ? 0 : (b >= nbins ? nbins - 1 : b);
        atomicAdd(&hist[b], 1.0);
    }
}

__global__ void accumulate(double* __restrict__ hist, const double* __restrict__ other, int nbins) {
    int b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b < nbins) hist[b] += other[b];
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size & (size - 1)) {
        if (rank == 0) std::fprintf(stderr, "recursive doubling needs a power-of-two rank count\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
        return 1;
    }

    const int nbins = 8192;
    const int nparticles = 1 << 22;
    const float emax = 50.0f;
    const size_t hbytes = nbins * sizeof(double);

    std::vector<float> energies(nparticles);
    std::mt19937 gen(1234u + rank);
    std::gamma_distribution<float> dist(2.0f, 4.0f);
    for (float& e : energies) e = dist(gen);

    float* d_energy = nullptr;
    double* d_hist = nullptr;
    double* d_recv = nullptr;
    double* h_send = nullptr;
    double* h_recv = nullptr;
    CUDA_CHECK(cudaMalloc(&d_energy, nparticles * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_hist, hbytes));
    CUDA_CHECK(cudaMalloc(&d_recv, hbytes));
    CUDA_CHECK(cudaMallocHost(&h_send, hbytes));
    CUDA_CHECK(cudaMallocHost(&h_recv, hbytes));
    CUDA_CHECK(cudaMemcpy(d_energy, energies.data(), nparticles * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(d_hist, 0, hbytes));
    CUDA_CHECK(cudaMemset(d_recv, 0, hbytes));

    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreate(&stream));

    histogram<<<256, 256, 0, stream>>>(d_energy, nparticles, d_hist, nbins, emax);

    Comm c;
    comm_init(&c, MPI_COMM_WORLD);
    for (int mask = 1; mask < size; mask <<= 1) {
        const int partner = rank ^ mask;
        CUDA_CHECK(cudaMemcpyAsync(h_send, d_hist, hbytes, cudaMemcpyDeviceToHost, stream));
        CUDA_CHECK(cudaStreamSynchronize(stream));

        post_recv(&c, h_recv, nbins, partner, mask);
        post_send(&c, h_send, nbins, partner, mask);
        // Queue the upload now so it starts as soon as the stream is free.
        CUDA_CHECK(cudaMemcpyAsync(d_recv, h_recv, hbytes, cudaMemcpyHostToDevice, stream)); // EXPECT: missing_sync
        comm_wait(&c);
        accumulate<<<(nbins + 255) / 256, 256, 0, stream>>>(d_hist, d_recv, nbins);
    }

    CUDA_CHECK(cudaMemcpyAsync(h_send, d_hist, hbytes, cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    if (rank == 0) {
        double total = 0.0;
        for (int b = 0; b < nbins; ++b) total += h_send[b];
        std::printf("particles binned: %.0f (expected %d)\n", total, nparticles * size);
    }

    CUDA_CHECK(cudaFree(d_energy));
    CUDA_CHECK(cudaFree(d_hist));
    CUDA_CHECK(cudaFree(d_recv));
    CUDA_CHECK(cudaFreeHost(h_send));
    CUDA_CHECK(cudaFreeHost(h_recv));
    CUDA_CHECK(cudaStreamDestroy(stream));
    MPI_Finalize();
    return 0;
}

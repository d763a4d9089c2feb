// case: particle beam drifting in +x across a ring of slabs; pack_leaving (migrate.h) enqueues the gather kernel on a non-blocking stream and send_leaving (migrate.h) hands mb.d_out to MPI_Send with no synchronization in between, so the finding is at the MPI_Send in the header.
// expect: missing_sync=1
#include <mpi.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <vector>
#include "migrate.h"

__global__ void drift(Particle* p, int n, float dt) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n || !p[i].alive) return;
    p[i].x += p[i].px * dt;
    p[i].y += p[i].py * dt;
}

__global__ void count_leaving(const Particle* p, int n, float xhi, int* nout) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && p[i].alive && p[i].x >= xhi) atomicAdd(nout, 1);
}

__global__ void append_arrivals(Particle* parts, int n, const Particle* in, int nin, float length) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= nin) return;
    Particle q = in[i];
    if (q.x >= length) q.x -= length;  // periodic ring of slabs
    parts[n + i] = q;
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int n0 = 50000, cap = 1 << 20, steps = 60;
    const float width = 10.0f, length = width * size, dt = 0.05f;
    const float xlo = rank * width, xhi = xlo + width;
    const int right = (rank + 1) % size, left = (rank - 1 + size) % size;

    std::vector<Particle> h_parts(n0);
    for (int i = 0; i < n0; ++i)
        h_parts[i] = Particle{xlo + width * (float)i / n0, (float)(i % 100) * 0.01f, 1.0f + 0.5f * (i % 5), 0.0f, 1};

    Particle* d_parts = nullptr;
    int* h_count = nullptr;
    CUDA_OK(cudaMalloc(&d_parts, cap * sizeof(Particle)));
    CUDA_OK(cudaMallocHost(&h_count, sizeof(int)));
    CUDA_OK(cudaMemcpy(d_parts, h_parts.data(), n0 * sizeof(Particle), cudaMemcpyHostToDevice));
    MigrationBuffers mb;
    migration_alloc(mb, cap / 4);
    CUDA_OK(cudaDeviceSynchronize());

    cudaStream_t s;
    CUDA_OK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    int n = n0;
    for (int step = 0; step < steps; ++step) {
        drift<<<(n + 255) / 256, 256, 0, s>>>(d_parts, n, dt);
        CUDA_OK(cudaMemsetAsync(mb.d_nout, 0, sizeof(int), s));
        count_leaving<<<(n + 255) / 256, 256, 0, s>>>(d_parts, n, xhi, mb.d_nout);
        CUDA_OK(cudaMemcpyAsync(h_count, mb.d_nout, sizeof(int), cudaMemcpyDeviceToHost, s));
        CUDA_OK(cudaStreamSynchronize(s));
        int nout = *h_count, nin = 0;
        MPI_Sendrecv(&nout, 1, MPI_INT, right, 10, &nin, 1, MPI_INT, left, 10, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (nout > mb.cap || nin > mb.cap || n + nin > cap) MPI_Abort(MPI_COMM_WORLD, 3);

        MPI_Request rreq;
        MPI_Irecv(mb.d_in, nin * (int)sizeof(Particle), MPI_BYTE, left, 11, MPI_COMM_WORLD, &rreq);
        pack_leaving(mb, d_parts, n, xhi, s);
        send_leaving(mb, nout, right);
        MPI_Wait(&rreq, MPI_STATUS_IGNORE);
        if (nin > 0) append_arrivals<<<(nin + 255) / 256, 256, 0, s>>>(d_parts, n, mb.d_in, nin, length);
        CUDA_OK(cudaStreamSynchronize(s));
        n += nin;
    }

    long long local = 0, total = 0;
    CUDA_OK(cudaMemcpy(h_parts.data(), d_parts, n0 * sizeof(Particle), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n0; ++i) local += h_parts[i].alive;
    MPI_Reduce(&local, &total, 1, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) printf("original particles still on their first rank: %lld\n", total);

    migration_free(mb);
    CUDA_OK(cudaStreamDestroy(s));
    CUDA_OK(cudaFreeHost(h_count));
    CUDA_OK(cudaFree(d_parts));
    MPI_Finalize();
    return 0;
}

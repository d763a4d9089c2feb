// Migration of beam particles that leave through the right face of a rank's
// slab; the leaving particles are gathered on the device and sent with
// CUDA-aware MPI.
#pragma once
#include <mpi.h>
#include <cuda_runtime.h>
#include <cstdio>

#define CUDA_OK(call)                                                          \
    do {                                                                       \
        cudaError_t rc_ = (call);                                              \
        if (rc_ != cudaSuccess) {                                              \
            fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__,                  \
                    cudaGetErrorString(rc_));                                  \
            MPI_Abort(MPI_COMM_WORLD, 1);                                      \
        }                                                                      \
    } while (0)

struct Particle {
    float x, y, px, py;
    int alive;
};

struct MigrationBuffers {
    Particle* d_out;   // leaving particles, packed
    Particle* d_in;    // arriving particles
    int* d_nout;       // number leaving (counted before packing)
    int* d_cursor;     // packing cursor
    int cap;
};

__global__ void gather_leaving(Particle* parts, int n, float xhi, Particle* out, int* cursor) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n || !parts[i].alive || parts[i].x < xhi) return;
    int slot = atomicAdd(cursor, 1);
    out[slot] = parts[i];
    parts[i].alive = 0;
}

inline void migration_alloc(MigrationBuffers& mb, int cap) {
    mb.cap = cap;
    CUDA_OK(cudaMalloc(&mb.d_out, cap * sizeof(Particle)));
    CUDA_OK(cudaMalloc(&mb.d_in, cap * sizeof(Particle)));
    CUDA_OK(cudaMalloc(&mb.d_nout, sizeof(int)));
    CUDA_OK(cudaMalloc(&mb.d_cursor, sizeof(int)));
    CUDA_OK(cudaMemset(mb.d_in, 0, cap * sizeof(Particle)));
    CUDA_OK(cudaMemset(mb.d_nout, 0, sizeof(int)));
}

inline void migration_free(MigrationBuffers& mb) {
    CUDA_OK(cudaFree(mb.d_out));
    CUDA_OK(cudaFree(mb.d_in));
    CUDA_OK(cudaFree(mb.d_nout));
    CUDA_OK(cudaFree(mb.d_cursor));
}

// Enqueues the packing of the leaving particles on s.
inline void pack_leaving(MigrationBuffers& mb, Particle* d_parts, int n, float xhi, cudaStream_t s) {
    CUDA_OK(cudaMemsetAsync(mb.d_cursor, 0, sizeof(int), s));
    gather_leaving<<<(n + 255) / 256, 256, 0, s>>>(d_parts, n, xhi, mb.d_out, mb.d_cursor);
}

inline void send_leaving(const MigrationBuffers& mb, int nout, int dest) {
    MPI_Send(mb.d_out, nout * (int)sizeof(Particle), MPI_BYTE, dest, 11, MPI_COMM_WORLD);  // EXPECT: missing_sync
}

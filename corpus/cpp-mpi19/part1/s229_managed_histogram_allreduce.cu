// case: energy histogram in managed memory filled by a kernel on the legacy stream; MPI_Allreduce(MPI_IN_PLACE, hist) runs right after the launch, while the kernel's atomics may still be writing hist.
// expect: missing_sync=1
#include <mpi.h>
#include <cuda_runtime.h>
#include <cstdio>

__global__ void energy_histogram(const float* vel, int n, unsigned* hist, int nbins, float emax) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float vx = vel[3 * i], vy = vel[3 * i + 1], vz = vel[3 * i + 2];
    float e = 0.5f * (vx * vx + vy * vy + vz * vz);
    int b = (int)(e / emax * nbins);
    if (b >= nbins) b = nbins - 1;
    atomicAdd(&hist[b], 1u);
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int n = 1 << 20, nbins = 128;
    const float emax = 8.0f;

    float* vel = nullptr;
    unsigned* hist = nullptr;
    cudaMallocManaged(&vel, 3 * (size_t)n * sizeof(float));
    cudaMallocManaged(&hist, nbins * sizeof(unsigned));
    for (int i = 0; i < 3 * n; ++i) {
        unsigned h = (unsigned)(i + 1) * 2654435761u + (unsigned)rank * 97u;
        vel[i] = ((float)(h >> 8) / (float)(1u << 24) - 0.5f) * 4.0f;
    }
    for (int b = 0; b < nbins; ++b) hist[b] = 0;

    energy_histogram<<<(n + 255) / 256, 256>>>(vel, n, hist, nbins, emax);
    MPI_Allreduce(MPI_IN_PLACE, hist, nbins, MPI_UNSIGNED, MPI_SUM, MPI_COMM_WORLD);  // EXPECT: missing_sync
    cudaDeviceSynchronize();

    if (rank == 0) {
        unsigned long long total = 0, below = 0;
        for (int b = 0; b < nbins; ++b) total += hist[b];
        int median_bin = 0;
        for (; median_bin < nbins && below * 2 < total; ++median_bin) below += hist[median_bin];
        printf("%llu particles, median energy ~ %.3f\n", total, emax * median_bin / nbins);
    }

    cudaFree(vel);
    cudaFree(hist);
    MPI_Finalize();
    return 0;
}

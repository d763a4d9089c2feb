// case: an Ising-model Metropolis loop keeps its spin lattice and a host-side magnetisation histogram in global managed memory; while the sweep kernel runs it clears the histogram (unused by the kernel) and probes a lattice spin (written by the kernel) before synchronizing.
// expect: managed_concurrent_access=1, missing_sync=1
#include "managed.h"
#include <algorithm>

constexpr int L = 2048;
constexpr int kBins = 201;

__global__ void metropolis_sweep(signed char* spins, int parity, float beta, unsigned seed) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= L || y >= L || ((x + y) & 1) != parity) return;
    int nb = spins[y * L + (x + 1) % L] + spins[y * L + (x + L - 1) % L] +
             spins[((y + 1) % L) * L + x] + spins[((y + L - 1) % L) * L + x];
    int s = spins[y * L + x];
    float dE = 2.f * s * nb;
    unsigned h = (seed ^ (y * L + x)) * 2654435761u;
    float u = (h >> 8) / 16777216.f;
    if (dE <= 0.f || u < __expf(-beta * dE)) spins[y * L + x] = -s;
}

int main() {
    signed char* spins = managed_alloc<signed char>((size_t)L * L);
    int* mag_hist = managed_alloc<int>(kBins);
    for (size_t i = 0; i < (size_t)L * L; ++i) spins[i] = (i * 7 % 3) ? 1 : -1;

    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    dim3 block(32, 8), grid(L / 32, L / 8);
    const float beta = 0.44f;

    for (int sweep = 0; sweep < 100; ++sweep) {
        metropolis_sweep<<<grid, block, 0, s>>>(spins, 0, beta, 17u * sweep);
        metropolis_sweep<<<grid, block, 0, s>>>(spins, 1, beta, 31u * sweep + 1);

        if (sweep == 0) std::fill(mag_hist, mag_hist + kBins, 0);
        int corner = spins[0];                      // probe while the sweep runs

        CUDA_CHECK(cudaStreamSynchronize(s));
        long m = 0;
        for (size_t i = 0; i < (size_t)L * L; i += 64) m += spins[i];
        int bin = (int)((m / (double)((size_t)L * L / 64) + 1.0) * 100.0);
        mag_hist[std::min(std::max(bin, 0), kBins - 1)] += 1;
        if (sweep % 25 == 0) std::printf("sweep %d corner %d m %ld\n", sweep, corner, m);
    }

    CUDA_CHECK(cudaStreamDestroy(s));
    managed_free(mag_hist);
    managed_free(spins);
    return 0;
}

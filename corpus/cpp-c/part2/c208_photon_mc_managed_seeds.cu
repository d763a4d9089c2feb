// case: a Monte Carlo photon-transport driver refills the managed seed array of the next batch while the current batch's transport kernel (which uses only device buffers) is still running
// expect: managed_concurrent_access=1
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <random>

#define CUDA_TRY(stmt)                                                              \
    do {                                                                            \
        cudaError_t status_ = (stmt);                                               \
        if (status_ != cudaSuccess) {                                               \
            std::fprintf(stderr, "[mc] %s (%s:%d)\n", cudaGetErrorString(status_),  \
                         __FILE__, __LINE__);                                       \
            return -1;                                                              \
        }                                                                           \
    } while (0)

struct PhotonState { float x, y, z, ux, uy, uz, w; uint32_t rng; };

__device__ inline float xorshift01(uint32_t& s) {
    s ^= s << 13; s ^= s >> 17; s ^= s << 5;
    return (s & 0xFFFFFF) / 16777216.0f;
}

__global__ void launch_photons(PhotonState* ph, const uint32_t* seeds, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) ph[i] = PhotonState{0.f, 0.f, 0.f, 0.f, 0.f, 1.f, 1.f, seeds[i] | 1u};
}

__global__ void transport(PhotonState* ph, float* absorbed, int n, float mu_a, float mu_s, int max_steps) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    PhotonState p = ph[i];
    for (int s = 0; s < max_steps && p.w > 1e-4f; ++s) {
        float step = -logf(xorshift01(p.rng) + 1e-7f) / (mu_a + mu_s);
        p.z += step * p.uz;
        float dw = p.w * mu_a / (mu_a + mu_s);
        atomicAdd(&absorbed[min(max((int)(p.z * 10.f), 0), 1023)], dw);
        p.w -= dw;
        p.uz = 2.f * xorshift01(p.rng) - 1.f;
    }
    ph[i] = p;
}

int main() {
    const int n = 1 << 20, batches = 8;
    PhotonState* d_ph = nullptr;
    float* d_absorbed = nullptr;
    uint32_t* seeds = nullptr;      // managed: filled by the host, read by launch_photons
    CUDA_TRY(cudaMalloc(&d_ph, n * sizeof(PhotonState)));
    CUDA_TRY(cudaMalloc(&d_absorbed, 1024 * sizeof(float)));
    CUDA_TRY(cudaMallocManaged(&seeds, n * sizeof(uint32_t)));

    std::mt19937 gen(12345);
    for (int i = 0; i < n; ++i) seeds[i] = gen();
    CUDA_TRY(cudaMemset(d_absorbed, 0, 1024 * sizeof(float)));

    cudaStream_t s;
    CUDA_TRY(cudaStreamCreate(&s));
    const int blocks = (n + 255) / 256;
    for (int b = 0; b < batches; ++b) {
        launch_photons<<<blocks, 256, 0, s>>>(d_ph, seeds, n);
        CUDA_TRY(cudaStreamSynchronize(s));        // seeds consumed
        transport<<<blocks, 256, 0, s>>>(d_ph, d_absorbed, n, 0.1f, 10.f, 1000);
        // prepare the next batch while this one is transported
        for (int i = 0; i < n; ++i) seeds[i] = gen(); // EXPECT: managed_concurrent_access
    }
    CUDA_TRY(cudaStreamSynchronize(s));

    float absorbed[1024];
    CUDA_TRY(cudaMemcpy(absorbed, d_absorbed, sizeof(absorbed), cudaMemcpyDeviceToHost));
    double total = 0.0;
    for (float a : absorbed) total += a;
    std::printf("absorbed fraction %.4f\n", total / ((double)n * batches));

    cudaStreamDestroy(s);
    cudaFree(seeds);
    cudaFree(d_absorbed);
    cudaFree(d_ph);
    return 0;
}

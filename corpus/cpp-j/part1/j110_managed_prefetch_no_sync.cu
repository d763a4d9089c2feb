// case: a particle update on managed memory prefetches to the GPU, launches, prefetches back to the CPU on the same stream and then reads the positions without synchronizing; the prefetch is asynchronous and does not wait for the host
// expect: missing_sync=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define CUDA_CALL(f) do { cudaError_t e = (f); if (e != cudaSuccess) { \
    fprintf(stderr, "%s (%s:%d)\n", cudaGetErrorString(e), __FILE__, __LINE__); exit(1); } } while (0)

struct Particle { float x, y, z, vx, vy, vz; };

__global__ void integrate(Particle* p, int n, float dt) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    p[i].vy -= 9.81f * dt;
    p[i].x += p[i].vx * dt;
    p[i].y += p[i].vy * dt;
    p[i].z += p[i].vz * dt;
}

int main() {
    int device = 0;
    CUDA_CALL(cudaGetDevice(&device));
    const int n = 1 << 20;
    Particle* particles = nullptr;
    CUDA_CALL(cudaMallocManaged(&particles, n * sizeof(Particle)));
    for (int i = 0; i < n; ++i)
        particles[i] = Particle{0.f, 100.f, 0.f, 1.f, 0.f, 0.5f};

    cudaStream_t stream;
    CUDA_CALL(cudaStreamCreate(&stream));
    CUDA_CALL(cudaMemPrefetchAsync(particles, n * sizeof(Particle), device, stream));

    for (int step = 0; step < 100; ++step)
        integrate<<<(n + 255) / 256, 256, 0, stream>>>(particles, n, 0.01f);
    CUDA_CALL(cudaGetLastError());

    CUDA_CALL(cudaMemPrefetchAsync(particles, n * sizeof(Particle), cudaCpuDeviceId, stream));

    float min_y = particles[0].y; // EXPECT: missing_sync
    for (int i = 1; i < n; ++i)
        if (particles[i].y < min_y) min_y = particles[i].y;
    printf("lowest particle at y=%f\n", min_y);

    CUDA_CALL(cudaStreamSynchronize(stream));
    CUDA_CALL(cudaStreamDestroy(stream));
    CUDA_CALL(cudaFree(particles));
    return 0;
}

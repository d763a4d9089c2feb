// case: particle emitter that frees its small start-up buffer and reallocates it at full capacity before uploading the full particle set: every allocation the copy may see holds the bytes it copies
// expect: none
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                    \
    do {                                                                    \
        cudaError_t e = (call);                                             \
        if (e != cudaSuccess) {                                             \
            std::fprintf(stderr, "%s @%d\n", cudaGetErrorString(e), __LINE__); \
            std::exit(1);                                                   \
        }                                                                   \
    } while (0)

struct Particle {
    float3 pos;
    float3 vel;
    float life;
};

constexpr int kWarmup = 1024;
constexpr int kCapacity = 1 << 18;

__global__ void advance(Particle *p, int n, float dt)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    p[i].vel.y -= 9.81f * dt;
    p[i].pos.x += p[i].vel.x * dt;
    p[i].pos.y += p[i].vel.y * dt;
    p[i].pos.z += p[i].vel.z * dt;
    p[i].life -= dt;
}

int main()
{
    std::vector<Particle> host(kCapacity);
    for (int i = 0; i < kCapacity; ++i)
        host[i] = Particle{make_float3(0.f, 0.f, 0.f), make_float3(0.01f * (i % 100), 5.f, 0.f), 2.f};

    Particle *d_particles = nullptr;
    CUDA_CHECK(cudaMalloc(&d_particles, kWarmup * sizeof(Particle)));
    CUDA_CHECK(cudaMemcpy(d_particles, host.data(), kWarmup * sizeof(Particle), cudaMemcpyHostToDevice));
    advance<<<kWarmup / 256, 256>>>(d_particles, kWarmup, 0.016f);
    CUDA_CHECK(cudaMemcpy(host.data(), d_particles, kWarmup * sizeof(Particle), cudaMemcpyDeviceToHost));
    std::printf("warm-up particle 0 y = %f\n", host[0].pos.y);

    // full emission: grow the buffer
    CUDA_CHECK(cudaFree(d_particles));
    CUDA_CHECK(cudaMalloc(&d_particles, kCapacity * sizeof(Particle)));
    CUDA_CHECK(cudaMemcpy(d_particles, host.data(), kCapacity * sizeof(Particle), cudaMemcpyHostToDevice));
    for (int frame = 0; frame < 60; ++frame)
        advance<<<kCapacity / 256, 256>>>(d_particles, kCapacity, 0.016f);
    CUDA_CHECK(cudaMemcpy(host.data(), d_particles, kCapacity * sizeof(Particle), cudaMemcpyDeviceToHost));

    std::printf("particle %d life %f\n", kCapacity - 1, host[kCapacity - 1].life);
    CUDA_CHECK(cudaFree(d_particles));
    return 0;
}

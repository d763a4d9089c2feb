// case: particle advection with a struct of device arrays where positions are uploaded but the velocity field is only allocated, so the advect kernel reads uninitialized velocities.
// expect: uninitialized_device_read=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(stmt) do { cudaError_t e_ = (stmt); if (e_ != cudaSuccess) { \
    std::fprintf(stderr, "%s -> %s\n", #stmt, cudaGetErrorString(e_)); std::exit(1); } } while (0)

constexpr int kParticles = 65536;
constexpr int kSteps = 100;
constexpr float kDt = 1e-3f;

struct ParticleSystem {
    float3* d_pos = nullptr;
    float3* d_vel = nullptr;
    int count = 0;
};

__global__ void advect(float3* pos, const float3* vel, float dt, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float3 p = pos[i];
        float3 v = vel[i];
        p.x += v.x * dt;
        p.y += v.y * dt;
        p.z += v.z * dt;
        pos[i] = p;
    }
}

static void create_system(ParticleSystem& ps, int n)
{
    ps.count = n;
    CUDA_CHECK(cudaMalloc(&ps.d_pos, n * sizeof(float3)));
    CUDA_CHECK(cudaMalloc(&ps.d_vel, n * sizeof(float3)));
}

static void destroy_system(ParticleSystem& ps)
{
    CUDA_CHECK(cudaFree(ps.d_pos));
    CUDA_CHECK(cudaFree(ps.d_vel));
}

int main()
{
    std::vector<float3> pos(kParticles), vel(kParticles);
    for (int i = 0; i < kParticles; ++i) {
        pos[i] = make_float3(i * 0.01f, 0.0f, 0.0f);
        vel[i] = make_float3(0.0f, 1.0f, 0.5f);
    }

    ParticleSystem ps;
    create_system(ps, kParticles);
    CUDA_CHECK(cudaMemcpy(ps.d_pos, pos.data(), kParticles * sizeof(float3), cudaMemcpyHostToDevice));

    const int threads = 128;
    const int blocks = (kParticles + threads - 1) / threads;
    for (int step = 0; step < kSteps; ++step) {
        advect<<<blocks, threads>>>(ps.d_pos, ps.d_vel, kDt, ps.count); // EXPECT: uninitialized_device_read
    }
    CUDA_CHECK(cudaGetLastError());

    CUDA_CHECK(cudaMemcpy(pos.data(), ps.d_pos, kParticles * sizeof(float3), cudaMemcpyDeviceToHost));
    std::printf("particle 0 at (%f, %f, %f)\n", pos[0].x, pos[0].y, pos[0].z);

    destroy_system(ps);
    return 0;
}

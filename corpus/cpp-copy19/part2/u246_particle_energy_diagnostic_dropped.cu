// case: an N-body kick-drift integrator's kick kernel also writes per-particle kinetic energy for diagnostics every step, but the energy buffer is never reduced or copied back before it is freed.
// expect: unread_kernel_output=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    std::fprintf(stderr, "%s\n", cudaGetErrorString(e)); std::exit(1); } } while (0)

constexpr int kBodies = 4096;
constexpr int kSteps = 10;
constexpr float kDt = 0.01f;
constexpr float kSoft = 1e-3f;

__global__ void kick(const float4* pos_mass, float3* vel, float* kinetic, int n, float dt)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 pi = pos_mass[i];
    float3 a = make_float3(0.f, 0.f, 0.f);
    for (int j = 0; j < n; ++j) {
        float4 pj = pos_mass[j];
        float dx = pj.x - pi.x, dy = pj.y - pi.y, dz = pj.z - pi.z;
        float inv = rsqrtf(dx * dx + dy * dy + dz * dz + kSoft);
        float s = pj.w * inv * inv * inv;
        a.x += dx * s; a.y += dy * s; a.z += dz * s;
    }
    float3 v = vel[i];
    v.x += a.x * dt; v.y += a.y * dt; v.z += a.z * dt;
    vel[i] = v;
    kinetic[i] = 0.5f * pi.w * (v.x * v.x + v.y * v.y + v.z * v.z);
}

__global__ void drift(float4* pos_mass, const float3* vel, int n, float dt)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 p = pos_mass[i];
    float3 v = vel[i];
    pos_mass[i] = make_float4(p.x + v.x * dt, p.y + v.y * dt, p.z + v.z * dt, p.w);
}

int main()
{
    std::vector<float4> pm(kBodies);
    std::vector<float3> vel(kBodies, make_float3(0.f, 0.f, 0.f));
    for (int i = 0; i < kBodies; ++i)
        pm[i] = make_float4(float(i % 64), float((i / 64) % 64), float(i / 4096), 1.0f / kBodies);

    float4* d_pm;
    float3* d_vel;
    float* d_kinetic;
    CUDA_CHECK(cudaMalloc(&d_pm, kBodies * sizeof(float4)));
    CUDA_CHECK(cudaMalloc(&d_vel, kBodies * sizeof(float3)));
    CUDA_CHECK(cudaMalloc(&d_kinetic, kBodies * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(d_pm, pm.data(), kBodies * sizeof(float4), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_vel, vel.data(), kBodies * sizeof(float3), cudaMemcpyHostToDevice));

    for (int s = 0; s < kSteps; ++s) {
        kick<<<kBodies / 128, 128>>>(d_pm, d_vel, d_kinetic, kBodies, kDt);
        drift<<<kBodies / 128, 128>>>(d_pm, d_vel, kBodies, kDt);
    }
    CUDA_CHECK(cudaGetLastError());

    CUDA_CHECK(cudaMemcpy(pm.data(), d_pm, kBodies * sizeof(float4), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(vel.data(), d_vel, kBodies * sizeof(float3), cudaMemcpyDeviceToHost));
    std::printf("body 0 at (%f, %f, %f)\n", pm[0].x, pm[0].y, pm[0].z);

    CUDA_CHECK(cudaFree(d_pm));
    CUDA_CHECK(cudaFree(d_vel));
    CUDA_CHECK(cudaFree(d_kinetic)); // EXPECT: unread_kernel_output
    return 0;
}

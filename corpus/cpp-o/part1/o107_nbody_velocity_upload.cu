// case: N-body leapfrog integrator stores velocities on the device as float3 but uploads the host's float4 velocity array with a float4-sized byte count, writing past the end of d_vel.
// expect: copy_out_of_bounds=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cmath>

#define N_BODIES 16384
#define SOFTENING 1e-3f
#define CUDA_CALL(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    printf("CUDA failure %s at line %d\n", cudaGetErrorString(e_), __LINE__); exit(1); } } while (0)

__global__ void body_forces(const float4* __restrict__ pos, float3* __restrict__ vel, float dt, int n)
{
    extern __shared__ float4 tile[];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float4 pi = i < n ? pos[i] : make_float4(0, 0, 0, 0);
    float3 acc = make_float3(0, 0, 0);
    for (int base = 0; base < n; base += blockDim.x) {
        int j = base + threadIdx.x;
        tile[threadIdx.x] = j < n ? pos[j] : make_float4(0, 0, 0, 0);
        __syncthreads();
        for (int k = 0; k < blockDim.x; ++k) {
            float4 pj = tile[k];
            float dx = pj.x - pi.x, dy = pj.y - pi.y, dz = pj.z - pi.z;
            float inv = rsqrtf(dx * dx + dy * dy + dz * dz + SOFTENING);
            float s = pj.w * inv * inv * inv;
            acc.x += dx * s; acc.y += dy * s; acc.z += dz * s;
        }
        __syncthreads();
    }
    if (i < n) { vel[i].x += acc.x * dt; vel[i].y += acc.y * dt; vel[i].z += acc.z * dt; }
}

__global__ void drift(float4* pos, const float3* vel, float dt, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { pos[i].x += vel[i].x * dt; pos[i].y += vel[i].y * dt; pos[i].z += vel[i].z * dt; }
}

int main()
{
    std::vector<float4> h_pos(N_BODIES), h_vel(N_BODIES);
    for (int i = 0; i < N_BODIES; ++i) {
        float a = 6.2831853f * i / N_BODIES, r = 1.f + (i % 64) / 64.f;
        h_pos[i] = make_float4(r * cosf(a), r * sinf(a), 0.01f * (i % 7), 1.f / N_BODIES);
        h_vel[i] = make_float4(-sinf(a) * 0.3f, cosf(a) * 0.3f, 0.f, 0.f);
    }

    float4* d_pos;
    float3* d_vel;
    CUDA_CALL(cudaMalloc(&d_pos, N_BODIES * sizeof(float4)));
    CUDA_CALL(cudaMalloc(&d_vel, N_BODIES * sizeof(float3)));
    CUDA_CALL(cudaMemcpy(d_pos, h_pos.data(), N_BODIES * sizeof(float4), cudaMemcpyHostToDevice));
    CUDA_CALL(cudaMemcpy(d_vel, h_vel.data(), N_BODIES * sizeof(float4), cudaMemcpyHostToDevice));  // EXPECT: copy_out_of_bounds

    const int threads = 256, blocks = (N_BODIES + threads - 1) / threads;
    const float dt = 1e-3f;
    for (int step = 0; step < 100; ++step) {
        body_forces<<<blocks, threads, threads * sizeof(float4)>>>(d_pos, d_vel, dt, N_BODIES);
        drift<<<blocks, threads>>>(d_pos, d_vel, dt, N_BODIES);
    }
    CUDA_CALL(cudaGetLastError());
    CUDA_CALL(cudaMemcpy(h_pos.data(), d_pos, N_BODIES * sizeof(float4), cudaMemcpyDeviceToHost));

    double cx = 0, cy = 0;
    for (const auto& p : h_pos) { cx += p.x * p.w; cy += p.y * p.w; }
    printf("centre of mass (%.5f, %.5f)\n", cx, cy);

    CUDA_CALL(cudaFree(d_vel));
    CUDA_CALL(cudaFree(d_pos));
    return 0;
}

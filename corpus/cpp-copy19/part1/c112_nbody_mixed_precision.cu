// case: n-body integrator whose host state is double precision (real = double) while the device masses are allocated as floats, so the mass upload copies twice the device buffer
// expect: copy_out_of_bounds=1
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

using real = double;

#define CUDA_CHECK(call)                                                    \
    do {                                                                    \
        cudaError_t e = (call);                                             \
        if (e != cudaSuccess) {                                             \
            std::fprintf(stderr, "%s\n", cudaGetErrorString(e));            \
            std::exit(1);                                                   \
        }                                                                   \
    } while (0)

constexpr int NP = 16384;
constexpr float DT = 1e-3f;

__global__ void kick_drift(float4 *pos, float4 *vel, const float *mass, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 p = pos[i];
    float3 a = make_float3(0.f, 0.f, 0.f);
    for (int j = 0; j < n; ++j) {
        float4 q = pos[j];
        float dx = q.x - p.x, dy = q.y - p.y, dz = q.z - p.z;
        float r2 = dx * dx + dy * dy + dz * dz + 1e-4f;
        float s = mass[j] * rsqrtf(r2 * r2 * r2);
        a.x += dx * s; a.y += dy * s; a.z += dz * s;
    }
    float4 v = vel[i];
    v.x += a.x * DT; v.y += a.y * DT; v.z += a.z * DT;
    vel[i] = v;
    pos[i] = make_float4(p.x + v.x * DT, p.y + v.y * DT, p.z + v.z * DT, p.w);
}

int main()
{
    std::vector<float4> h_pos(NP), h_vel(NP);
    std::vector<real> h_mass(NP);
    for (int i = 0; i < NP; ++i) {
        h_pos[i] = make_float4(float(i % 64), float((i / 64) % 64), float(i / 4096), 0.f);
        h_vel[i] = make_float4(0.f, 0.f, 0.f, 0.f);
        h_mass[i] = 1.0 / NP;
    }

    float4 *d_pos, *d_vel;
    float *d_mass;
    CUDA_CHECK(cudaMalloc(&d_pos, NP * sizeof(float4)));
    CUDA_CHECK(cudaMalloc(&d_vel, NP * sizeof(float4)));
    CUDA_CHECK(cudaMalloc(&d_mass, NP * sizeof(float)));

    CUDA_CHECK(cudaMemcpy(d_pos, h_pos.data(), NP * sizeof(float4), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_vel, h_vel.data(), NP * sizeof(float4), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_mass, h_mass.data(), NP * sizeof(real), cudaMemcpyHostToDevice)); // EXPECT: copy_out_of_bounds

    for (int step = 0; step < 10; ++step)
        kick_drift<<<NP / 256, 256>>>(d_pos, d_vel, d_mass, NP);
    CUDA_CHECK(cudaDeviceSynchronize());

    CUDA_CHECK(cudaMemcpy(h_pos.data(), d_pos, NP * sizeof(float4), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(h_vel.data(), d_vel, NP * sizeof(float4), cudaMemcpyDeviceToHost));
    std::printf("p0 = (%f, %f, %f) v0.x = %f\n", h_pos[0].x, h_pos[0].y, h_pos[0].z, h_vel[0].x);

    CUDA_CHECK(cudaFree(d_pos));
    CUDA_CHECK(cudaFree(d_vel));
    CUDA_CHECK(cudaFree(d_mass));
    return 0;
}

// case: N-body leapfrog step uploads positions from a std::vector with cudaMemcpyAsync (pageable, 16 MiB) and resets a managed energy accumulator on the host while the integrate kernel (which never touches it) is still running.
// expect: pageable_async_copy=1, managed_concurrent_access=1
#include <cuda_runtime.h>
#include <vector>
#include <cstdio>
#include <cmath>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); return 1; } } while (0)

struct EnergyStats { double kinetic; double potential; int steps; };

__global__ void integrate(float4* pos, float4* vel, int n, float dt)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 p = pos[i], v = vel[i];
    float3 a = make_float3(0.f, 0.f, 0.f);
    for (int j = 0; j < n; j += 64) {
        float4 q = pos[j];
        float dx = q.x - p.x, dy = q.y - p.y, dz = q.z - p.z;
        float inv = rsqrtf(dx * dx + dy * dy + dz * dz + 1e-4f);
        float s = q.w * inv * inv * inv;
        a.x += dx * s; a.y += dy * s; a.z += dz * s;
    }
    v.x += a.x * dt; v.y += a.y * dt; v.z += a.z * dt;
    p.x += v.x * dt; p.y += v.y * dt; p.z += v.z * dt;
    pos[i] = p; vel[i] = v;
}

__global__ void kinetic(const float4* vel, int n, EnergyStats* st)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float4 v = vel[i];
        atomicAdd(&st->kinetic, 0.5 * v.w * (v.x * v.x + v.y * v.y + v.z * v.z));
    }
}

int main()
{
    const int n = 1 << 20;
    const size_t bytes = n * sizeof(float4);
    std::vector<float4> h_pos(n), h_vel(n);
    for (int i = 0; i < n; ++i) {
        float t = 0.001f * i;
        h_pos[i] = make_float4(cosf(t) * 10.f, sinf(t) * 10.f, 0.01f * i, 1.0f);
        h_vel[i] = make_float4(0.f, 0.f, 0.f, 1.0f);
    }

    float4 *d_pos, *d_vel;
    EnergyStats* stats;
    cudaStream_t s;
    CK(cudaStreamCreate(&s));
    CK(cudaMalloc(&d_pos, bytes));
    CK(cudaMalloc(&d_vel, bytes));
    CK(cudaMallocManaged(&stats, sizeof(EnergyStats)));
    stats->kinetic = 0.0; stats->potential = 0.0; stats->steps = 0;

    CK(cudaMemcpyAsync(d_pos, h_pos.data(), bytes, cudaMemcpyHostToDevice, s));   // pageable source
    CK(cudaMemcpy(d_vel, h_vel.data(), bytes, cudaMemcpyHostToDevice));

    const int threads = 256, blocks = (n + threads - 1) / threads;
    for (int step = 0; step < 10; ++step)
        integrate<<<blocks, threads, 0, s>>>(d_pos, d_vel, n, 1e-3f);

    // integrate() does not use `stats`, but on a device without concurrent managed
    // access the host may not touch managed memory while any kernel runs.
    stats->kinetic = 0.0;
    stats->steps = 10;

    kinetic<<<blocks, threads, 0, s>>>(d_vel, n, stats);
    CK(cudaStreamSynchronize(s));
    printf("kinetic energy after %d steps: %f\n", stats->steps, stats->kinetic);

    CK(cudaFree(stats));
    CK(cudaFree(d_vel));
    CK(cudaFree(d_pos));
    CK(cudaStreamDestroy(s));
    return 0;
}

// case: a particle integrator keeps particles and its adaptive-timestep parameters in managed memory; while the integrate kernel (which takes the parameters by value) runs, the host adapts params->dt, touching managed memory the kernel does not use, and sums kinetic energy from the particles the kernel is writing.
// expect: managed_concurrent_access=1, missing_sync=1
#include <cuda_runtime.h>
#include <algorithm>
#include <cmath>
#include <cstdio>

#define CUDA_CHECK(c)                                                       \
    do {                                                                    \
        cudaError_t e = (c);                                                \
        if (e != cudaSuccess) {                                             \
            std::printf("CUDA error %s at line %d\n", cudaGetErrorString(e), __LINE__); \
            return 1;                                                       \
        }                                                                   \
    } while (0)

struct Particle { float3 x, v; float m; };

struct SimParams {
    float dt;
    float gravity;
    float damping;
    float cfl;
};

__global__ void seed_particles(Particle* p, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    p[i].x = make_float3(i % 128, (i / 128) % 128, i / 16384);
    p[i].v = make_float3(0.f, 0.f, 0.f);
    p[i].m = 1.f;
}

__global__ void integrate(Particle* p, int n, SimParams sp) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    Particle q = p[i];
    q.v.y += sp.gravity * sp.dt;
    q.v.x *= sp.damping; q.v.y *= sp.damping; q.v.z *= sp.damping;
    q.x.x += q.v.x * sp.dt; q.x.y += q.v.y * sp.dt; q.x.z += q.v.z * sp.dt;
    if (q.x.y < 0.f) { q.x.y = -q.x.y; q.v.y = -q.v.y; }
    p[i] = q;
}

static float adapt_dt(float dt, float vmax, float cfl) {
    return vmax > 0.f ? std::min(dt * 1.1f, cfl / vmax) : dt * 1.1f;
}

int main() {
    const int n = 1 << 20;
    Particle* parts = nullptr;
    SimParams* params = nullptr;
    CUDA_CHECK(cudaMallocManaged(&parts, n * sizeof(Particle)));
    CUDA_CHECK(cudaMallocManaged(&params, sizeof(SimParams)));

    params->dt = 1e-3f;
    params->gravity = -9.81f;
    params->damping = 0.999f;
    params->cfl = 0.4f;

    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreate(&stream));
    seed_particles<<<(n + 255) / 256, 256, 0, stream>>>(parts, n);
    CUDA_CHECK(cudaStreamSynchronize(stream));

    float vmax = 0.f;
    integrate<<<(n + 255) / 256, 256, 0, stream>>>(parts, n, *params);

    // Overlap the host bookkeeping for the next step with the integration.
    params->dt = adapt_dt(params->dt, vmax, params->cfl);  // EXPECT: managed_concurrent_access
    double kinetic = 0.0;
    for (int i = 0; i < n; ++i) {
        const Particle q = parts[i];  // EXPECT: missing_sync
        kinetic += 0.5 * q.m * (q.v.x * q.v.x + q.v.y * q.v.y + q.v.z * q.v.z);
        vmax = std::max(vmax, std::fabs(q.v.y));
    }
    CUDA_CHECK(cudaStreamSynchronize(stream));

    std::printf("E_kin = %.4e, next dt = %.3e\n", kinetic, params->dt);
    CUDA_CHECK(cudaFree(params));
    CUDA_CHECK(cudaFree(parts));
    CUDA_CHECK(cudaStreamDestroy(stream));
    return 0;
}

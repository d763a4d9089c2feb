// case: a molecular-dynamics driver keeps its cudaMalloc'd arrays in a ParticleSystem struct and, after synchronizing, sums the per-particle energy by indexing the device pointer on the host in total_energy().
// expect: host_deref_device_ptr=1
#include <cuda_runtime.h>
#include <cstdio>
#include <vector>

#define CUDA_CHECK(c) do { cudaError_t e = (c); if (e != cudaSuccess) { \
    fprintf(stderr, "%s\n", cudaGetErrorString(e)); std::exit(1); } } while (0)

struct ParticleSystem {
    float4* pos = nullptr;
    float4* vel = nullptr;
    float*  energy = nullptr;
    int     n = 0;
};

__global__ void lj_step(ParticleSystem sys, float dt) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= sys.n) return;
    float4 p = sys.pos[i], v = sys.vel[i];
    p.x += v.x * dt; p.y += v.y * dt; p.z += v.z * dt;
    sys.pos[i] = p;
    sys.energy[i] = 0.5f * p.w * (v.x * v.x + v.y * v.y + v.z * v.z);
}

static ParticleSystem make_system(int n) {
    ParticleSystem s;
    s.n = n;
    CUDA_CHECK(cudaMalloc(&s.pos, n * sizeof(float4)));
    CUDA_CHECK(cudaMalloc(&s.vel, n * sizeof(float4)));
    CUDA_CHECK(cudaMalloc(&s.energy, n * sizeof(float)));
    std::vector<float4> init(n);
    for (int i = 0; i < n; ++i) init[i] = make_float4(i * 0.01f, 0.f, 0.f, 1.f);
    CUDA_CHECK(cudaMemcpy(s.pos, init.data(), n * sizeof(float4), cudaMemcpyHostToDevice));
    for (int i = 0; i < n; ++i) init[i] = make_float4(0.f, 1.f, 0.f, 0.f);
    CUDA_CHECK(cudaMemcpy(s.vel, init.data(), n * sizeof(float4), cudaMemcpyHostToDevice));
    return s;
}

static void destroy_system(ParticleSystem& s) {
    cudaFree(s.energy);
    cudaFree(s.vel);
    cudaFree(s.pos);
    s = ParticleSystem{};
}

// Kinetic energy for the log line: the author forgot that s.energy lives on the GPU.
static double total_energy(const ParticleSystem& s) {
    double e = 0.0;
    for (int i = 0; i < s.n; ++i) e += s.energy[i];
    return e;
}

int main() {
    const int n = 65536;
    ParticleSystem sys = make_system(n);
    for (int step = 1; step <= 1000; ++step) {
        lj_step<<<(n + 127) / 128, 128>>>(sys, 1e-3f);
        if (step % 250 == 0) {
            CUDA_CHECK(cudaDeviceSynchronize());
            printf("step %4d  E_kin = %.6f\n", step, total_energy(sys));
        }
    }
    CUDA_CHECK(cudaDeviceSynchronize());
    destroy_system(sys);
    return 0;
}

// case: SPH fluid step runs the density kernel on particle arrays while the host resets a separately managed diagnostics struct that no kernel uses, before any synchronization: a fault on devices without concurrent managed access.
// expect: managed_concurrent_access=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cmath>

#define SPH_CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    std::fprintf(stderr, "SPH: %s at %d\n", cudaGetErrorString(e), __LINE__); std::exit(1); } } while (0)

struct Particles {
    float3* pos;
    float*  density;
    float*  pressure;
    int     n;
};

struct Diagnostics {
    double kinetic;
    double max_density;
    int    step;
    int    neighbours_overflow;
};

__global__ void compute_density(Particles p, float h, float mass)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= p.n) return;
    float h2 = h * h, rho = 0.f;
    float3 pi = p.pos[i];
    for (int j = 0; j < p.n; ++j) {
        float dx = pi.x - p.pos[j].x, dy = pi.y - p.pos[j].y, dz = pi.z - p.pos[j].z;
        float r2 = dx * dx + dy * dy + dz * dz;
        if (r2 < h2) { float q = h2 - r2; rho += mass * 315.f / (64.f * 3.14159f * powf(h, 9.f)) * q * q * q; }
    }
    p.density[i] = rho;
    p.pressure[i] = 3.f * (rho - 1000.f);
}

int main(int argc, char** argv)
{
    int n = argc > 1 ? std::atoi(argv[1]) : 32768;
    Particles p{};
    p.n = n;
    SPH_CHECK(cudaMallocManaged(&p.pos, n * sizeof(float3)));
    SPH_CHECK(cudaMallocManaged(&p.density, n * sizeof(float)));
    SPH_CHECK(cudaMallocManaged(&p.pressure, n * sizeof(float)));
    Diagnostics* diag = nullptr;
    SPH_CHECK(cudaMallocManaged(&diag, sizeof(Diagnostics)));

    int side = (int)std::cbrt((double)n) + 1;
    for (int i = 0; i < n; ++i)
        p.pos[i] = make_float3((i % side) * 0.01f, ((i / side) % side) * 0.01f, (i / (side * side)) * 0.01f);

    for (int step = 0; step < 10; ++step) {
        compute_density<<<(n + 127) / 128, 128>>>(p, 0.025f, 0.02f);
        SPH_CHECK(cudaGetLastError());
        diag->step = step;                                   // EXPECT: managed_concurrent_access
        diag->kinetic = 0.0;
        diag->neighbours_overflow = 0;
        SPH_CHECK(cudaDeviceSynchronize());
        double mx = 0.0;
        for (int i = 0; i < n; ++i) mx = std::fmax(mx, p.density[i]);
        diag->max_density = mx;
        std::printf("step %d max density %.2f\n", diag->step, diag->max_density);
    }

    SPH_CHECK(cudaFree(diag));
    SPH_CHECK(cudaFree(p.pressure));
    SPH_CHECK(cudaFree(p.density));
    SPH_CHECK(cudaFree(p.pos));
    return 0;
}

// case: a particle integrator keeps positions in managed memory and the host computes the bounding box right after the launch, without waiting for the kernel that writes them
// expect: missing_sync=1
#include <cuda_runtime.h>
#include <cfloat>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(call) do { cudaError_t e = (call); if (e != cudaSuccess) { \
    fprintf(stderr, "%s\n", cudaGetErrorString(e)); exit(1); } } while (0)

struct Particle {
    float x, y, z;
    float vx, vy, vz;
};

__global__ void integrate(Particle* p, int n, float dt) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    p[i].vy -= 9.81f * dt;
    p[i].x += p[i].vx * dt;
    p[i].y += p[i].vy * dt;
    p[i].z += p[i].vz * dt;
}

struct Box { float lo[3], hi[3]; };

static Box bounding_box(const Particle* p, int n) {
    Box b;
    for (int k = 0; k < 3; ++k) { b.lo[k] = FLT_MAX; b.hi[k] = -FLT_MAX; }
    for (int i = 0; i < n; ++i) {
        const float c[3] = {p[i].x, p[i].y, p[i].z};
        for (int k = 0; k < 3; ++k) {
            b.lo[k] = c[k] < b.lo[k] ? c[k] : b.lo[k];
            b.hi[k] = c[k] > b.hi[k] ? c[k] : b.hi[k];
        }
    }
    return b;
}

int main() {
    const int n = 1 << 18;
    Particle* parts = nullptr;
    CUDA_CHECK(cudaMallocManaged(&parts, n * sizeof(Particle)));
    for (int i = 0; i < n; ++i) {
        parts[i] = Particle{(float)(i % 64), 10.f, (float)(i / 64 % 64), 0.5f, 0.f, -0.25f};
    }

    integrate<<<(n + 255) / 256, 256>>>(parts, n, 0.01f);
    CUDA_CHECK(cudaGetLastError());

    float x0 = parts[0].x; // EXPECT: missing_sync
    Box b = bounding_box(parts, n);
    printf("first x %.3f box [%.2f %.2f %.2f]-[%.2f %.2f %.2f]\n", x0,
           b.lo[0], b.lo[1], b.lo[2], b.hi[0], b.hi[1], b.hi[2]);

    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaFree(parts));
    return 0;
}

// case: a small n-body integrator keeps its particles in cudaMallocManaged memory and frees the force buffer at the end, but never frees the particle array
// expect: device_memory_leak=1
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define NUM_BODIES 4096
#define STEPS 100
#define DT 0.001f
#define SOFTENING 1e-3f

struct Body {
    float3 pos;
    float3 vel;
    float mass;
};

__global__ void compute_forces(const Body* bodies, float3* forces, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float3 pi = bodies[i].pos;
    float3 f = make_float3(0.f, 0.f, 0.f);
    for (int j = 0; j < n; ++j) {
        float dx = bodies[j].pos.x - pi.x;
        float dy = bodies[j].pos.y - pi.y;
        float dz = bodies[j].pos.z - pi.z;
        float inv = rsqrtf(dx * dx + dy * dy + dz * dz + SOFTENING);
        float s = bodies[j].mass * inv * inv * inv;
        f.x += dx * s; f.y += dy * s; f.z += dz * s;
    }
    forces[i] = f;
}

__global__ void integrate(Body* bodies, const float3* forces, int n, float dt) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    bodies[i].vel.x += forces[i].x * dt;
    bodies[i].vel.y += forces[i].y * dt;
    bodies[i].vel.z += forces[i].z * dt;
    bodies[i].pos.x += bodies[i].vel.x * dt;
    bodies[i].pos.y += bodies[i].vel.y * dt;
    bodies[i].pos.z += bodies[i].vel.z * dt;
}

int main() {
    Body* bodies = nullptr;
    float3* d_forces = nullptr;
    cudaMallocManaged(&bodies, NUM_BODIES * sizeof(Body)); // EXPECT: device_memory_leak
    cudaMalloc(&d_forces, NUM_BODIES * sizeof(float3));

    srand(42);
    for (int i = 0; i < NUM_BODIES; ++i) {
        bodies[i].pos = make_float3(rand() / (float)RAND_MAX, rand() / (float)RAND_MAX,
                                    rand() / (float)RAND_MAX);
        bodies[i].vel = make_float3(0.f, 0.f, 0.f);
        bodies[i].mass = 1.0f / NUM_BODIES;
    }

    const int threads = 256;
    const int blocks = (NUM_BODIES + threads - 1) / threads;
    for (int s = 0; s < STEPS; ++s) {
        compute_forces<<<blocks, threads>>>(bodies, d_forces, NUM_BODIES);
        integrate<<<blocks, threads>>>(bodies, d_forces, NUM_BODIES, DT);
    }
    cudaDeviceSynchronize();

    double ke = 0.0;
    for (int i = 0; i < NUM_BODIES; ++i) {
        const Body& b = bodies[i];
        ke += 0.5 * b.mass * (b.vel.x * b.vel.x + b.vel.y * b.vel.y + b.vel.z * b.vel.z);
    }
    printf("kinetic energy after %d steps: %g\n", STEPS, ke);

    cudaFree(d_forces);
    return 0;
}

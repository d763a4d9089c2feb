// case: a struct-of-arrays particle system allocates every field with cudaMalloc, and a reset helper in the header writes the x velocities element by element from the host
// expect: host_deref_device_ptr=1
#include "particles.h"
#include <vector>

__global__ void advect(ParticlesSoA p, float dt) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= p.count) return;
    p.vel_y[i] -= 9.81f * dt;
    p.pos_x[i] += p.vel_x[i] * dt;
    p.pos_y[i] += p.vel_y[i] * dt;
}

int main() {
    const int n = 100000;
    ParticlesSoA p;
    particles_alloc(p, n);
    printf("particle state: %zu bytes on the device\n", particles_bytes(p));

    std::vector<float> init(n);
    for (int i = 0; i < n; ++i) init[i] = (float)(i % 320);
    CUDA_CHECK(cudaMemcpy(p.pos_x, init.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(p.pos_y, init.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    particles_reset_velocity(p, 1.5f);

    for (int step = 0; step < 100; ++step)
        advect<<<(n + 255) / 256, 256>>>(p, 0.01f);
    CUDA_CHECK(cudaGetLastError());

    std::vector<float> x(n), y(n), vy(n);
    CUDA_CHECK(cudaMemcpy(x.data(), p.pos_x, n * sizeof(float), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(y.data(), p.pos_y, n * sizeof(float), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(vy.data(), p.vel_y, n * sizeof(float), cudaMemcpyDeviceToHost));
    printf("particle 0 at (%.2f, %.2f) vy %.2f\n", x[0], y[0], vy[0]);
    int fell_out = 0;
    for (int i = 0; i < n; ++i) fell_out += y[i] < 0.f;
    printf("%d particles below the floor\n", fell_out);

    particles_free(p);
    return 0;
}

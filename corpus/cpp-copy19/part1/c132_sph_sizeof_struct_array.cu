// case: SPH density pass over a global array of particle structs, uploaded and downloaded with sizeof of that array into a buffer allocated with the same sizeof
// expect: none
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <cuda_runtime.h>

#define NUM_PARTICLES 4096
#define H_SMOOTH 0.05f
#define PI_F 3.14159265f

typedef struct {
    float x, y, z;
    float mass;
    float density;
    float pressure;
} SphParticle;

static SphParticle h_particles[NUM_PARTICLES];

__global__ void compute_density(SphParticle *p, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float h2 = H_SMOOTH * H_SMOOTH;
    const float poly6 = 315.0f / (64.0f * PI_F * powf(H_SMOOTH, 9.0f));
    float rho = 0.0f;
    for (int j = 0; j < n; ++j) {
        float dx = p[j].x - p[i].x, dy = p[j].y - p[i].y, dz = p[j].z - p[i].z;
        float r2 = dx * dx + dy * dy + dz * dz;
        if (r2 < h2) rho += p[j].mass * poly6 * (h2 - r2) * (h2 - r2) * (h2 - r2);
    }
    p[i].density = rho;
    p[i].pressure = 3.0f * (rho - 1000.0f);
}

int main(void)
{
    for (int i = 0; i < NUM_PARTICLES; ++i) {
        h_particles[i].x = 0.01f * (i % 16);
        h_particles[i].y = 0.01f * ((i / 16) % 16);
        h_particles[i].z = 0.01f * (i / 256);
        h_particles[i].mass = 0.02f;
        h_particles[i].density = 0.0f;
        h_particles[i].pressure = 0.0f;
    }

    SphParticle *d_particles;
    if (cudaMalloc((void **)&d_particles, sizeof(h_particles)) != cudaSuccess) {
        fprintf(stderr, "allocation failed\n");
        return 1;
    }
    cudaMemcpy(d_particles, h_particles, sizeof(h_particles), cudaMemcpyHostToDevice);

    compute_density<<<NUM_PARTICLES / 128, 128>>>(d_particles, NUM_PARTICLES);
    cudaDeviceSynchronize();

    cudaMemcpy(h_particles, d_particles, sizeof(h_particles), cudaMemcpyDeviceToHost);
    printf("rho[0] = %f p[0] = %f\n", h_particles[0].density, h_particles[0].pressure);

    cudaFree(d_particles);
    return 0;
}

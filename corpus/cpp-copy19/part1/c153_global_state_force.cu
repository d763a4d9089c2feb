// case: molecular-dynamics code with a global struct of device arrays; pos and vel are allocated through their addresses but g_state.force never is, so both kernels given it receive null
// expect: unallocated_pointer=2
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

#define NATOMS 8192
#define DT 0.001f
#define CUTOFF2 6.25f

typedef struct {
    float4 *pos;
    float4 *vel;
    float4 *force;
} DeviceState;

DeviceState g_state;

__global__ void lj_forces(const float4 *pos, float4 *force, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 pi = pos[i];
    float fx = 0.f, fy = 0.f, fz = 0.f;
    for (int j = 0; j < n; ++j) {
        if (j == i) continue;
        float dx = pi.x - pos[j].x, dy = pi.y - pos[j].y, dz = pi.z - pos[j].z;
        float r2 = dx * dx + dy * dy + dz * dz;
        if (r2 > CUTOFF2) continue;
        float ir2 = 1.0f / r2, ir6 = ir2 * ir2 * ir2;
        float f = 24.0f * ir2 * ir6 * (2.0f * ir6 - 1.0f);
        fx += f * dx; fy += f * dy; fz += f * dz;
    }
    force[i] = make_float4(fx, fy, fz, 0.f);
}

__global__ void integrate(float4 *pos, float4 *vel, const float4 *force, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    vel[i].x += force[i].x * DT; vel[i].y += force[i].y * DT; vel[i].z += force[i].z * DT;
    pos[i].x += vel[i].x * DT; pos[i].y += vel[i].y * DT; pos[i].z += vel[i].z * DT;
}

int main(void)
{
    size_t bytes = NATOMS * sizeof(float4);
    float4 *h_pos = (float4 *)malloc(bytes);
    float4 *h_vel = (float4 *)malloc(bytes);
    for (int i = 0; i < NATOMS; ++i)
        h_pos[i] = make_float4(1.2f * (i % 20), 1.2f * ((i / 20) % 20), 1.2f * (i / 400), 0.f);

    cudaMalloc((void **)&g_state.pos, bytes);
    cudaMalloc((void **)&g_state.vel, bytes);
    cudaMemcpy(g_state.pos, h_pos, bytes, cudaMemcpyHostToDevice);
    cudaMemset(g_state.vel, 0, bytes);

    for (int step = 0; step < 100; ++step) {
        lj_forces<<<NATOMS / 128, 128>>>(g_state.pos, g_state.force, NATOMS); // EXPECT: unallocated_pointer
        integrate<<<NATOMS / 128, 128>>>(g_state.pos, g_state.vel, g_state.force, NATOMS); // EXPECT: unallocated_pointer
    }
    cudaMemcpy(h_pos, g_state.pos, bytes, cudaMemcpyDeviceToHost);
    cudaMemcpy(h_vel, g_state.vel, bytes, cudaMemcpyDeviceToHost);

    double ke = 0.0;
    for (int i = 0; i < NATOMS; ++i)
        ke += 0.5 * (h_vel[i].x * h_vel[i].x + h_vel[i].y * h_vel[i].y + h_vel[i].z * h_vel[i].z);
    printf("atom 0 at (%f, %f, %f), kinetic energy %f\n", h_pos[0].x, h_pos[0].y, h_pos[0].z, ke);

    cudaFree(g_state.pos);
    cudaFree(g_state.vel);
    cudaFree(g_state.force);
    free(h_pos);
    free(h_vel);
    return 0;
}

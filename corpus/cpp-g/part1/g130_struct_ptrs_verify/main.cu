// case: A struct of cudaMalloc'd arrays (header helpers) is passed by value to the integrator kernels; after cudaDeviceSynchronize the energy check loop reads state.energy[i] on the host, dereferencing device memory.
// expect: host_deref_device_ptr=1
#include <math.h>
#include "buffers.h"

#define NPART  (1 << 20)
#define STEPS  50
#define DT     0.001f

__global__ void leapfrog(DeviceState s, float k)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= s.n) return;
    s.vel[i] -= k * s.pos[i] * DT;
    s.pos[i] += s.vel[i] * DT;
}

__global__ void compute_energy(DeviceState s, float k)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= s.n) return;
    s.energy[i] = 0.5f * s.vel[i] * s.vel[i] + 0.5f * k * s.pos[i] * s.pos[i];
}

int main(void)
{
    const float k = 4.0f;
    float *pos0 = (float *)malloc(NPART * sizeof(float));
    float *vel0 = (float *)malloc(NPART * sizeof(float));
    for (int i = 0; i < NPART; i++) { pos0[i] = 1.0f; vel0[i] = 0.0f; }

    DeviceState state;
    state_alloc(&state, NPART);
    state_upload(&state, pos0, vel0);

    int grid = (NPART + 255) / 256;
    for (int step = 0; step < STEPS; step++)
        leapfrog<<<grid, 256>>>(state, k);
    compute_energy<<<grid, 256>>>(state, k);
    CUDA_ERR(cudaDeviceSynchronize());

    const float e0 = 0.5f * k;
    int drifted = 0;
    for (int i = 0; i < NPART; i++)
        if (fabsf(state.energy[i] - e0) > 1e-2f * e0) drifted++;
    printf("%d of %d particles drifted in energy\n", drifted, NPART);

    state_free(&state);
    free(vel0);
    free(pos0);
    return 0;
}

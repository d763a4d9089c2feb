// case: Verlet cloth simulation whose global device arrays (cloth_state.h) are all allocated by cloth_alloc() in cloth_state.cu, which main calls before the copies, memset and launches
// expect: none
#include <stdio.h>
#include <stdlib.h>
#include "cloth_state.h"
#include "cloth_state.cu"

#define DT 0.005f

__global__ void gravity(float3 *accel, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) accel[i] = make_float3(0.0f, -9.81f, 0.0f);
}

__global__ void verlet(float3 *pos, float3 *prev, const float3 *accel, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n || i < CLOTH_W) return;  /* top row is pinned */
    float3 p = pos[i], q = prev[i], a = accel[i];
    float3 next = make_float3(2.f * p.x - q.x + a.x * DT * DT,
                              2.f * p.y - q.y + a.y * DT * DT,
                              2.f * p.z - q.z + a.z * DT * DT);
    prev[i] = p;
    pos[i] = next;
}

int main(void)
{
    float3 *h_pos = (float3 *)malloc(NUM_NODES * sizeof(float3));
    for (int i = 0; i < NUM_NODES; ++i)
        h_pos[i] = make_float3(0.01f * (i % CLOTH_W), 0.0f, 0.01f * (i / CLOTH_W));

    cloth_alloc();
    cudaMemcpy(d_pos, h_pos, NUM_NODES * sizeof(float3), cudaMemcpyHostToDevice);
    cudaMemcpy(d_prev, h_pos, NUM_NODES * sizeof(float3), cudaMemcpyHostToDevice);
    cudaMemset(d_accel, 0, NUM_NODES * sizeof(float3));

    gravity<<<NUM_NODES / 256, 256>>>(d_accel, NUM_NODES);
    for (int s = 0; s < 200; ++s)
        verlet<<<NUM_NODES / 256, 256>>>(d_pos, d_prev, d_accel, NUM_NODES);

    cudaMemcpy(h_pos, d_pos, NUM_NODES * sizeof(float3), cudaMemcpyDeviceToHost);
    printf("bottom corner y = %f\n", h_pos[NUM_NODES - 1].y);

    cudaMemcpy(h_pos, d_prev, NUM_NODES * sizeof(float3), cudaMemcpyDeviceToHost);
    printf("previous bottom corner y = %f\n", h_pos[NUM_NODES - 1].y);

    cloth_free();
    free(h_pos);
    return 0;
}

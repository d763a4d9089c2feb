#include "boids_buffers.h"

void alloc_buffers(void)
{
    cudaMalloc((void **)&d_pos, NUM_BOIDS * sizeof(float2));
    cudaMalloc((void **)&d_vel_next, NUM_BOIDS * sizeof(float2));
}

void free_buffers(void)
{
    cudaFree(d_pos);
    cudaFree(d_vel);
    cudaFree(d_vel_next);
}

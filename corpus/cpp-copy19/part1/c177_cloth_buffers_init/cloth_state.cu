#include <stdio.h>
#include <stdlib.h>
#include "cloth_state.h"

static void must(cudaError_t e)
{
    if (e != cudaSuccess) {
        fprintf(stderr, "cloth: %s\n", cudaGetErrorString(e));
        exit(EXIT_FAILURE);
    }
}

void cloth_alloc(void)
{
    must(cudaMalloc((void **)&d_pos, NUM_NODES * sizeof(float3)));
    must(cudaMalloc((void **)&d_prev, NUM_NODES * sizeof(float3)));
    must(cudaMalloc((void **)&d_accel, NUM_NODES * sizeof(float3)));
}

void cloth_free(void)
{
    cudaFree(d_pos);
    cudaFree(d_prev);
    cudaFree(d_accel);
}

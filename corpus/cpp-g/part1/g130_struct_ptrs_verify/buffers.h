#ifndef BUFFERS_H
#define BUFFERS_H
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

#define CUDA_ERR(call) do { cudaError_t e__ = (call); if (e__ != cudaSuccess) { \
    fprintf(stderr, "[%s:%d] %s\n", __FILE__, __LINE__, cudaGetErrorString(e__)); exit(1); } } while (0)

/* Bundle of device arrays handed to kernels by value. */
typedef struct {
    float *pos;
    float *vel;
    float *energy;
    int    n;
} DeviceState;

static void state_alloc(DeviceState *s, int n)
{
    s->n = n;
    CUDA_ERR(cudaMalloc((void **)&s->pos, n * sizeof(float)));
    CUDA_ERR(cudaMalloc((void **)&s->vel, n * sizeof(float)));
    CUDA_ERR(cudaMalloc((void **)&s->energy, n * sizeof(float)));
}

static void state_upload(DeviceState *s, const float *pos, const float *vel)
{
    CUDA_ERR(cudaMemcpy(s->pos, pos, s->n * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_ERR(cudaMemcpy(s->vel, vel, s->n * sizeof(float), cudaMemcpyHostToDevice));
}

static void state_free(DeviceState *s)
{
    cudaFree(s->energy);
    cudaFree(s->vel);
    cudaFree(s->pos);
}
#endif

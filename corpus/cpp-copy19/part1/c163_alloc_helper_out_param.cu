// case: particle advection code that allocates every device array through its own helper alloc_device(float **p, size_t n), defined in the file, before uploading and launching
// expect: none
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

#define NP 200000
#define STEPS 50
#define DT 0.01f

static void check(cudaError_t e, const char *where)
{
    if (e != cudaSuccess) {
        fprintf(stderr, "%s: %s\n", where, cudaGetErrorString(e));
        exit(EXIT_FAILURE);
    }
}

static void alloc_device(float **p, size_t n)
{
    check(cudaMalloc((void **)p, n * sizeof(float)), "cudaMalloc");
}

__global__ void advect(float *x, float *y, const float *u, const float *v, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    x[i] += DT * u[i];
    y[i] += DT * v[i];
}

int main(void)
{
    float *h_x = (float *)malloc(NP * sizeof(float));
    float *h_y = (float *)malloc(NP * sizeof(float));
    float *h_u = (float *)malloc(NP * sizeof(float));
    float *h_v = (float *)malloc(NP * sizeof(float));
    for (int i = 0; i < NP; ++i) {
        h_x[i] = (float)(i % 500);
        h_y[i] = (float)(i / 500);
        h_u[i] = -h_y[i] * 0.001f;
        h_v[i] = h_x[i] * 0.001f;
    }

    float *d_x = NULL, *d_y = NULL, *d_u = NULL, *d_v = NULL;
    alloc_device(&d_x, NP);
    alloc_device(&d_y, NP);
    alloc_device(&d_u, NP);
    alloc_device(&d_v, NP);

    check(cudaMemcpy(d_x, h_x, NP * sizeof(float), cudaMemcpyHostToDevice), "x");
    check(cudaMemcpy(d_y, h_y, NP * sizeof(float), cudaMemcpyHostToDevice), "y");
    check(cudaMemcpy(d_u, h_u, NP * sizeof(float), cudaMemcpyHostToDevice), "u");
    check(cudaMemcpy(d_v, h_v, NP * sizeof(float), cudaMemcpyHostToDevice), "v");

    for (int s = 0; s < STEPS; ++s)
        advect<<<(NP + 255) / 256, 256>>>(d_x, d_y, d_u, d_v, NP);

    check(cudaMemcpy(h_x, d_x, NP * sizeof(float), cudaMemcpyDeviceToHost), "x back");
    check(cudaMemcpy(h_y, d_y, NP * sizeof(float), cudaMemcpyDeviceToHost), "y back");
    printf("p[1234] = (%f, %f)\n", h_x[1234], h_y[1234]);

    cudaFree(d_x); cudaFree(d_y); cudaFree(d_u); cudaFree(d_v);
    free(h_x); free(h_y); free(h_u); free(h_v);
    return 0;
}

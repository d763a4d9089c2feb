// case: C-style 2D Laplace solver whose global device grids start zero-initialized and are allocated in init_device(), which main calls before any copy or launch
// expect: none
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

#define NX 256
#define NY 256
#define ITERS 500

float *h_grid;
float *d_grid;
float *d_next;

__global__ void laplace_step(const float *u, float *un)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < 1 || y < 1 || x >= NX - 1 || y >= NY - 1) return;
    un[y * NX + x] = 0.25f * (u[y * NX + x - 1] + u[y * NX + x + 1] + u[(y - 1) * NX + x] + u[(y + 1) * NX + x]);
}

void init_device(void)
{
    cudaMalloc((void **)&d_grid, NX * NY * sizeof(float));
    cudaMalloc((void **)&d_next, NX * NY * sizeof(float));
}

void init_host(void)
{
    h_grid = (float *)malloc(NX * NY * sizeof(float));
    for (int y = 0; y < NY; ++y)
        for (int x = 0; x < NX; ++x)
            h_grid[y * NX + x] = (y == 0) ? 100.0f : 0.0f;
}

void finalize(void)
{
    cudaFree(d_grid);
    cudaFree(d_next);
    free(h_grid);
}

int main(void)
{
    init_host();
    init_device();

    cudaMemcpy(d_grid, h_grid, NX * NY * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(d_next, h_grid, NX * NY * sizeof(float), cudaMemcpyHostToDevice);

    dim3 block(16, 16), grid(NX / 16, NY / 16);
    for (int it = 0; it < ITERS; it += 2) {
        laplace_step<<<grid, block>>>(d_grid, d_next);
        laplace_step<<<grid, block>>>(d_next, d_grid);
    }
    cudaMemcpy(h_grid, d_grid, NX * NY * sizeof(float), cudaMemcpyDeviceToHost);
    printf("u(center) = %f\n", h_grid[(NY / 2) * NX + NX / 2]);

    finalize();
    return 0;
}

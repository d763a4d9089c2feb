// case: a lattice-Boltzmann setup allocates its distribution fields through a helper that writes the pointer to an out-parameter (and frees it itself when the initial fill fails); main frees both fields
// expect: none
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

#define LX 256
#define LY 256
#define Q 9
#define STEPS 200

static cudaError_t alloc_field(float **out, float init)
{
    float *d = NULL;
    size_t count = (size_t)Q * LX * LY;
    cudaError_t err = cudaMalloc((void **)&d, count * sizeof(float));
    if (err != cudaSuccess) return err;

    float *h = (float *)malloc(count * sizeof(float));
    for (size_t i = 0; i < count; i++) h[i] = init;
    err = cudaMemcpy(d, h, count * sizeof(float), cudaMemcpyHostToDevice);
    free(h);
    if (err != cudaSuccess) {
        cudaFree(d);
        return err;
    }
    *out = d;
    return cudaSuccess;
}

__global__ void relax(const float *f_in, float *f_out, float omega)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y;
    if (x >= LX) return;
    float rho = 0.0f;
    for (int q = 0; q < Q; q++) rho += f_in[(q * LY + y) * LX + x];
    float feq = rho / Q;
    for (int q = 0; q < Q; q++) {
        int idx = (q * LY + y) * LX + x;
        f_out[idx] = f_in[idx] + omega * (feq - f_in[idx]);
    }
}

int main(void)
{
    float *f_a = NULL, *f_b = NULL;
    if (alloc_field(&f_a, 1.0f / Q) != cudaSuccess) return 1;
    if (alloc_field(&f_b, 0.0f) != cudaSuccess) {
        cudaFree(f_a);
        return 1;
    }

    dim3 block(128), grid(LX / 128, LY);
    for (int s = 0; s < STEPS; s += 2) {
        relax<<<grid, block>>>(f_a, f_b, 1.2f);
        relax<<<grid, block>>>(f_b, f_a, 1.2f);
    }

    float *h = (float *)malloc(sizeof(float) * Q * LX * LY);
    cudaMemcpy(h, f_a, sizeof(float) * Q * LX * LY, cudaMemcpyDeviceToHost);
    double mass = 0.0;
    for (int i = 0; i < Q * LX * LY; i++) mass += h[i];
    printf("total mass after %d steps: %f\n", STEPS, mass);

    free(h);
    cudaFree(f_a);
    cudaFree(f_b);
    return 0;
}

// case: 1D wave equation with ghost cells that uploads the NX interior samples at d_u + HALO into a buffer of NX + 2*HALO floats: the offset copy fits exactly
// expect: none
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <cuda_runtime.h>

#define NX 65536
#define HALO 1
#define PADDED (NX + 2 * HALO)
#define C2 0.25f
#define STEPS 300

__global__ void wave_step(const float *prev, const float *cur, float *next, int nx)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x + HALO;
    if (i < nx + HALO)
        next[i] = 2.0f * cur[i] - prev[i] + C2 * (cur[i - 1] - 2.0f * cur[i] + cur[i + 1]);
}

int main(void)
{
    float *h_u = (float *)malloc(NX * sizeof(float));
    for (int i = 0; i < NX; ++i) {
        float x = (float)i / NX - 0.5f;
        h_u[i] = expf(-400.0f * x * x);
    }

    float *d_a, *d_b, *d_c;
    cudaMalloc((void **)&d_a, PADDED * sizeof(float));
    cudaMalloc((void **)&d_b, PADDED * sizeof(float));
    cudaMalloc((void **)&d_c, PADDED * sizeof(float));
    cudaMemset(d_a, 0, PADDED * sizeof(float));
    cudaMemset(d_b, 0, PADDED * sizeof(float));
    cudaMemset(d_c, 0, PADDED * sizeof(float));

    cudaMemcpy(d_a + HALO, h_u, NX * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(d_b + HALO, h_u, NX * sizeof(float), cudaMemcpyHostToDevice);

    int threads = 256, blocks = (NX + threads - 1) / threads;
    for (int s = 0; s < STEPS; s += 3) {
        wave_step<<<blocks, threads>>>(d_a, d_b, d_c, NX);
        wave_step<<<blocks, threads>>>(d_b, d_c, d_a, NX);
        wave_step<<<blocks, threads>>>(d_c, d_a, d_b, NX);
    }

    cudaMemcpy(h_u, d_b + HALO, NX * sizeof(float), cudaMemcpyDeviceToHost);
    float peak = 0.0f;
    for (int i = 0; i < NX; ++i) peak = fmaxf(peak, fabsf(h_u[i]));
    printf("peak amplitude after %d steps: %f\n", STEPS, peak);

    cudaFree(d_a);
    cudaFree(d_b);
    cudaFree(d_c);
    free(h_u);
    return 0;
}

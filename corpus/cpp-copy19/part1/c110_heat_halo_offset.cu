// case: 1D explicit heat solver with halo cells that uploads the interior at d_u + HALO but with the padded length, so the copy runs HALO floats past the end of d_u
// expect: copy_out_of_bounds=1
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

#define NX 100000
#define HALO 2
#define PADDED (NX + 2 * HALO)
#define STEPS 200
#define ALPHA 0.25f

__global__ void heat_step(const float *u, float *un, int nx)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x + HALO;
    if (i < nx + HALO)
        un[i] = u[i] + ALPHA * (u[i - 1] - 2.0f * u[i] + u[i + 1]);
}

int main(void)
{
    float *h_u = (float *)malloc(PADDED * sizeof(float));
    for (int i = 0; i < PADDED; ++i)
        h_u[i] = (i > PADDED / 3 && i < 2 * PADDED / 3) ? 100.0f : 0.0f;

    float *d_u, *d_un;
    cudaMalloc((void **)&d_u, PADDED * sizeof(float));
    cudaMalloc((void **)&d_un, PADDED * sizeof(float));
    cudaMemset(d_u, 0, PADDED * sizeof(float));
    cudaMemset(d_un, 0, PADDED * sizeof(float));

    cudaMemcpy(d_u + HALO, h_u, PADDED * sizeof(float), cudaMemcpyHostToDevice); // EXPECT: copy_out_of_bounds

    int threads = 256;
    int blocks = (NX + threads - 1) / threads;
    for (int s = 0; s < STEPS; s += 2) {
        heat_step<<<blocks, threads>>>(d_u, d_un, NX);
        heat_step<<<blocks, threads>>>(d_un, d_u, NX);
    }
    cudaDeviceSynchronize();

    cudaMemcpy(h_u, d_u, PADDED * sizeof(float), cudaMemcpyDeviceToHost);

    float total = 0.0f;
    for (int i = HALO; i < NX + HALO; ++i) total += h_u[i];
    printf("heat content after %d steps: %f\n", STEPS, total);

    cudaFree(d_u);
    cudaFree(d_un);
    free(h_u);
    return 0;
}

// case: lattice-Boltzmann style grid in managed memory allocated for NX*NY floats but cleared with a memset sized for doubles, writing twice the allocation
// expect: copy_out_of_bounds=1
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define NX 512
#define NY 512
#define ITERS 50

#define CUDA_CHECK(call)                                                    \
    do {                                                                    \
        cudaError_t e = (call);                                             \
        if (e != cudaSuccess) {                                             \
            printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e), __FILE__, __LINE__); \
            exit(EXIT_FAILURE);                                             \
        }                                                                   \
    } while (0)

__global__ void inject(float *rho, int x, int y, float amount)
{
    if (threadIdx.x == 0 && blockIdx.x == 0) rho[y * NX + x] += amount;
}

__global__ void diffuse(const float *src, float *dst)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x <= 0 || y <= 0 || x >= NX - 1 || y >= NY - 1) return;
    int i = y * NX + x;
    dst[i] = 0.2f * (src[i] + src[i - 1] + src[i + 1] + src[i - NX] + src[i + NX]);
}

int main()
{
    float *rho, *rho_next;
    CUDA_CHECK(cudaMallocManaged(&rho, NX * NY * sizeof(float)));
    CUDA_CHECK(cudaMallocManaged(&rho_next, NX * NY * sizeof(float)));

    CUDA_CHECK(cudaMemset(rho, 0, NX * NY * sizeof(double))); // EXPECT: copy_out_of_bounds
    CUDA_CHECK(cudaMemset(rho_next, 0, NX * NY * sizeof(float)));

    inject<<<1, 32>>>(rho, NX / 2, NY / 2, 1000.0f);

    dim3 block(16, 16);
    dim3 grid(NX / 16, NY / 16);
    for (int it = 0; it < ITERS; ++it) {
        diffuse<<<grid, block>>>(rho, rho_next);
        diffuse<<<grid, block>>>(rho_next, rho);
    }
    CUDA_CHECK(cudaDeviceSynchronize());

    double mass = 0.0;
    for (int i = 0; i < NX * NY; ++i) mass += rho[i];
    printf("total density %.3f, center %.5f\n", mass, rho[(NY / 2) * NX + NX / 2]);

    CUDA_CHECK(cudaFree(rho));
    CUDA_CHECK(cudaFree(rho_next));
    return 0;
}

// case: a distance-transform program launches its kernel into d_dist and returns from main without copying it back or freeing it: the output is never read and the allocation leaks.
// expect: unread_kernel_output=1, device_memory_leak=1
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#define CUDA_CHECK(x) { cudaError_t e = (x); if (e != cudaSuccess) { printf("CUDA: %s\n", cudaGetErrorString(e)); exit(1); } }

#define W 256
#define H 256

__global__ void manhattan_to_seed(const int2* seeds, int nseeds, float* dist)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= W || y >= H) return;
    float best = 1e30f;
    for (int s = 0; s < nseeds; ++s) {
        float d = fabsf((float)(x - seeds[s].x)) + fabsf((float)(y - seeds[s].y));
        best = fminf(best, d);
    }
    dist[y * W + x] = best;
}

int main(void)
{
    const int nseeds = 16;
    int2 seeds[nseeds];
    for (int s = 0; s < nseeds; ++s) seeds[s] = make_int2((s * 37) % W, (s * 91) % H);

    int2* d_seeds;
    float* d_dist;
    CUDA_CHECK(cudaMalloc((void**)&d_seeds, sizeof(seeds)));
    CUDA_CHECK(cudaMalloc((void**)&d_dist, W * H * sizeof(float))); // EXPECT: device_memory_leak
    CUDA_CHECK(cudaMemcpy(d_seeds, seeds, sizeof(seeds), cudaMemcpyHostToDevice));

    dim3 block(16, 16), grid(W / 16, H / 16);
    manhattan_to_seed<<<grid, block>>>(d_seeds, nseeds, d_dist);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());

    CUDA_CHECK(cudaFree(d_seeds));
    printf("distance field computed for %d seeds\n", nseeds);
    return 0; // EXPECT: unread_kernel_output
}

// case: a cellular automaton whose grid is seeded by an init kernel that writes through a __device__ helper, then a read-only step kernel produces the next generation, which is copied back.
// expect: none
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#define CUDA_CHECK(x) { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s\n", cudaGetErrorString(e)); exit(1); } }

#define GW 512
#define GH 512

__device__ unsigned int hash32(unsigned int x)
{
    x ^= x >> 16; x *= 0x7feb352dU; x ^= x >> 15; x *= 0x846ca68bU; x ^= x >> 16;
    return x;
}

__device__ void seed_cell(unsigned char* grid, int idx, unsigned int seed)
{
    grid[idx] = (hash32(idx ^ seed) & 3) == 0;
}

__global__ void seed_grid(unsigned char* grid, unsigned int seed)
{
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < GW * GH) seed_cell(grid, idx, seed);
}

__global__ void life_step(const unsigned char* cur, unsigned char* next)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= GW || y >= GH) return;
    int alive = 0;
    for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx)
            if (dx || dy) alive += cur[((y + dy + GH) % GH) * GW + (x + dx + GW) % GW];
    unsigned char c = cur[y * GW + x];
    next[y * GW + x] = (alive == 3) || (c && alive == 2);
}

int main(void)
{
    unsigned char *d_cur, *d_next;
    CUDA_CHECK(cudaMalloc((void**)&d_cur, GW * GH));
    CUDA_CHECK(cudaMalloc((void**)&d_next, GW * GH));

    seed_grid<<<(GW * GH + 255) / 256, 256>>>(d_cur, 2024u);
    dim3 block(16, 16), grid(GW / 16, GH / 16);
    life_step<<<grid, block>>>(d_cur, d_next);
    CUDA_CHECK(cudaGetLastError());

    static unsigned char h_next[GW * GH];
    CUDA_CHECK(cudaMemcpy(h_next, d_next, GW * GH, cudaMemcpyDeviceToHost));
    int population = 0;
    for (int i = 0; i < GW * GH; ++i) population += h_next[i];
    printf("population after one step: %d\n", population);

    CUDA_CHECK(cudaFree(d_cur));
    CUDA_CHECK(cudaFree(d_next));
    return 0;
}

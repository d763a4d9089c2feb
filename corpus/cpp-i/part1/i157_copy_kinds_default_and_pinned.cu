// case: a particle-mesh code copies with cudaMemcpyDefault between managed, pinned and device buffers and with explicit kinds that match where each buffer was allocated
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); exit(1); } } while (0)

__global__ void deposit(const float2* pos, int np, float* grid, int g) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= np) return;
    int gx = min((int)(pos[i].x * g), g - 1);
    int gy = min((int)(pos[i].y * g), g - 1);
    atomicAdd(&grid[gy * g + gx], 1.0f);
}

int main() {
    const int np = 1 << 20, g = 256;
    float2* pos_managed = nullptr;
    float2* pos_dev = nullptr;
    float* grid_dev = nullptr;
    float* grid_pinned = nullptr;
    CUDA_CHECK(cudaMallocManaged(&pos_managed, np * sizeof(float2)));
    CUDA_CHECK(cudaMalloc(&pos_dev, np * sizeof(float2)));
    CUDA_CHECK(cudaMalloc(&grid_dev, g * g * sizeof(float)));
    CUDA_CHECK(cudaMallocHost(&grid_pinned, g * g * sizeof(float)));

    for (int i = 0; i < np; ++i)
        pos_managed[i] = make_float2((i % 1024) / 1024.f, (i / 1024) / 1024.f);
    for (int i = 0; i < g * g; ++i) grid_pinned[i] = 0.f;

    CUDA_CHECK(cudaMemcpy(pos_dev, pos_managed, np * sizeof(float2), cudaMemcpyDefault));
    CUDA_CHECK(cudaMemcpy(grid_dev, grid_pinned, g * g * sizeof(float), cudaMemcpyHostToDevice));

    deposit<<<(np + 255) / 256, 256>>>(pos_dev, np, grid_dev, g);
    CUDA_CHECK(cudaGetLastError());

    CUDA_CHECK(cudaMemcpy(grid_pinned, grid_dev, g * g * sizeof(float), cudaMemcpyDefault));
    std::vector<float> snapshot(g * g);
    CUDA_CHECK(cudaMemcpy(snapshot.data(), grid_pinned, g * g * sizeof(float), cudaMemcpyHostToHost));

    float maxc = 0.f;
    for (float c : snapshot) maxc = c > maxc ? c : maxc;
    printf("densest cell holds %.0f particles\n", maxc);

    CUDA_CHECK(cudaFreeHost(grid_pinned));
    CUDA_CHECK(cudaFree(grid_dev));
    CUDA_CHECK(cudaFree(pos_dev));
    CUDA_CHECK(cudaFree(pos_managed));
    return 0;
}

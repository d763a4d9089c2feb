// case: broad-phase collision counter kept in a __device__ struct, reset with cudaMemcpyToSymbol and read back with cudaMemcpyFromSymbol, both sized sizeof(CollisionStats)
// expect: none
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

struct CollisionStats {
    unsigned int pairs_tested;
    unsigned int overlaps;
    unsigned int max_per_cell;
    unsigned int pad;
};

constexpr int kBoxes = 2048;

__device__ CollisionStats g_stats;

struct Aabb {
    float3 lo, hi;
};

__global__ void test_pairs(const Aabb *boxes, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned int mine = 0;
    for (int j = i + 1; j < n; ++j) {
        const Aabb &a = boxes[i], &b = boxes[j];
        bool hit = a.lo.x <= b.hi.x && b.lo.x <= a.hi.x && a.lo.y <= b.hi.y && b.lo.y <= a.hi.y &&
                   a.lo.z <= b.hi.z && b.lo.z <= a.hi.z;
        mine += hit;
    }
    atomicAdd(&g_stats.pairs_tested, (unsigned)(n - i - 1));
    atomicAdd(&g_stats.overlaps, mine);
    atomicMax(&g_stats.max_per_cell, mine);
}

int main()
{
    Aabb *h_boxes = new Aabb[kBoxes];
    for (int i = 0; i < kBoxes; ++i) {
        float x = float(i % 64), y = float((i / 64) % 32), z = float(i / 2048);
        h_boxes[i] = Aabb{make_float3(x, y, z), make_float3(x + 1.5f, y + 1.5f, z + 1.5f)};
    }

    Aabb *d_boxes;
    cudaMalloc(&d_boxes, kBoxes * sizeof(Aabb));
    cudaMemcpy(d_boxes, h_boxes, kBoxes * sizeof(Aabb), cudaMemcpyHostToDevice);

    CollisionStats zero = {0, 0, 0, 0};
    cudaMemcpyToSymbol(g_stats, &zero, sizeof(CollisionStats));

    test_pairs<<<kBoxes / 128, 128>>>(d_boxes, kBoxes);
    cudaDeviceSynchronize();

    CollisionStats stats;
    cudaMemcpyFromSymbol(&stats, g_stats, sizeof(CollisionStats));
    std::printf("tested %u pairs, %u overlaps, max %u per box\n",
                stats.pairs_tested, stats.overlaps, stats.max_per_cell);

    cudaFree(d_boxes);
    delete[] h_boxes;
    return 0;
}

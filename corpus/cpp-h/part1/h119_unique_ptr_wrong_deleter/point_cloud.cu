// case: LiDAR point-cloud voxelizer keeps every buffer in std::unique_ptr with CUDA deleters from a header, but the header's make_pinned returns its cudaMallocHost memory in a unique_ptr whose deleter calls cudaFree, so the pinned counts buffer is released by the wrong allocator at the end of main.
// expect: mismatched_free=1
#include "cuda_memory.hpp"
#include <cstdio>
#include <vector>
#include <cmath>

__global__ void voxelize(const float4* pts, unsigned* counts, int n, float voxel, int dim)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 p = pts[i];
    int x = (int)floorf(p.x / voxel) + dim / 2, y = (int)floorf(p.y / voxel) + dim / 2, z = (int)floorf(p.z / voxel);
    if (x < 0 || y < 0 || z < 0 || x >= dim || y >= dim || z >= dim) return;
    atomicAdd(&counts[((size_t)z * dim + y) * dim + x], 1u);
}

int main()
{
    const int n = 1 << 20, dim = 128;
    const size_t voxels = (size_t)dim * dim * dim;

    std::vector<float4> scan(n);
    for (int i = 0; i < n; ++i) {
        float a = 0.0001f * i, r = 5.f + 20.f * (i % 97) / 97.f;
        scan[i] = make_float4(r * std::cos(a), r * std::sin(a), 0.02f * (i % 200), 1.f);
    }

    auto d_pts = make_device<float4>(n);
    auto d_counts = make_device<unsigned>(voxels);
    auto h_counts = make_pinned<unsigned>(voxels);

    throw_on_error(cudaMemcpy(d_pts.get(), scan.data(), n * sizeof(float4), cudaMemcpyHostToDevice), "upload");
    throw_on_error(cudaMemset(d_counts.get(), 0, voxels * sizeof(unsigned)), "memset");
    voxelize<<<(n + 255) / 256, 256>>>(d_pts.get(), d_counts.get(), n, 0.4f, dim);
    throw_on_error(cudaMemcpy(h_counts.get(), d_counts.get(), voxels * sizeof(unsigned), cudaMemcpyDeviceToHost), "readback");

    size_t occupied = 0;
    for (size_t v = 0; v < voxels; ++v) occupied += h_counts[v] != 0;
    std::printf("%zu of %zu voxels occupied\n", occupied, voxels);
    return 0;
}

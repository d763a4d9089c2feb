// case: LiDAR point-cloud voxelizer streams chunks through one pinned staging buffer; the host refills the buffer for the next chunk while the previous chunk's cudaMemcpyAsync from it may still be reading (no wait inside the loop).
// expect: missing_sync=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cmath>

#define CUDA_CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_)); exit(1); } } while (0)

struct VoxelGrid {
    float3 origin;
    float  voxel;
    int3   dims;
    __device__ int flat(float3 p) const {
        int x = (int)floorf((p.x - origin.x) / voxel), y = (int)floorf((p.y - origin.y) / voxel),
            z = (int)floorf((p.z - origin.z) / voxel);
        if (x < 0 || y < 0 || z < 0 || x >= dims.x || y >= dims.y || z >= dims.z) return -1;
        return (z * dims.y + y) * dims.x + x;
    }
};

__global__ void voxelize(const float4* __restrict__ pts, int n, VoxelGrid g, unsigned int* occupancy)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 p = pts[i];
    int v = g.flat(make_float3(p.x, p.y, p.z));
    if (v >= 0) atomicAdd(&occupancy[v], 1u);
}

__host__ __device__ inline float4 lidar_point(int i, int n, int sweep)
{
    float az = 6.2831853f * i / n, el = -0.3f + 0.6f * ((i * 37) % 64) / 64.f;
    float r = 5.f + 20.f * (((i + sweep * 131) % 1000) / 1000.f);
    return make_float4(r * cosf(az) * cosf(el), r * sinf(az) * cosf(el), r * sinf(el), 1.f);
}

int main(int argc, char** argv)
{
    const int chunk = argc > 1 ? atoi(argv[1]) : 1 << 20;
    const int sweeps = argc > 2 ? atoi(argv[2]) : 32;
    VoxelGrid g{make_float3(-40.f, -40.f, -3.f), 0.2f, make_int3(400, 400, 30)};
    size_t nvox = (size_t)g.dims.x * g.dims.y * g.dims.z;

    float4* h_stage;
    CUDA_CHECK(cudaMallocHost(&h_stage, chunk * sizeof(float4)));
    float4* d_pts;
    unsigned int* d_occ;
    CUDA_CHECK(cudaMalloc(&d_pts, chunk * sizeof(float4)));
    CUDA_CHECK(cudaMalloc(&d_occ, nvox * sizeof(unsigned int)));
    CUDA_CHECK(cudaMemset(d_occ, 0, nvox * sizeof(unsigned int)));

    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    for (int sweep = 0; sweep < sweeps; ++sweep) {
        for (int i = 0; i < chunk; ++i)
            h_stage[i] = lidar_point(i, chunk, sweep);        // EXPECT: missing_sync
        CUDA_CHECK(cudaMemcpyAsync(d_pts, h_stage, chunk * sizeof(float4), cudaMemcpyHostToDevice, s));
        voxelize<<<(chunk + 255) / 256, 256, 0, s>>>(d_pts, chunk, g, d_occ);
    }
    CUDA_CHECK(cudaStreamSynchronize(s));

    unsigned int* h_occ;
    CUDA_CHECK(cudaMallocHost(&h_occ, nvox * sizeof(unsigned int)));
    CUDA_CHECK(cudaMemcpyAsync(h_occ, d_occ, nvox * sizeof(unsigned int), cudaMemcpyDeviceToHost, s));
    CUDA_CHECK(cudaStreamSynchronize(s));
    size_t occupied = 0;
    for (size_t v = 0; v < nvox; ++v) occupied += h_occ[v] > 0;
    printf("%zu of %zu voxels occupied\n", occupied, nvox);

    CUDA_CHECK(cudaFreeHost(h_occ));
    CUDA_CHECK(cudaStreamDestroy(s));
    CUDA_CHECK(cudaFree(d_occ));
    CUDA_CHECK(cudaFree(d_pts));
    CUDA_CHECK(cudaFreeHost(h_stage));
    return 0;
}

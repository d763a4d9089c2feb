// case: driver-API voxel occupancy grid cleared with cuMemsetD32 given the word count (bytes / 4) and read back with cuMemcpyDtoH of exactly its size
// expect: none
#include <cstdio>
#include <cstdlib>
#include <cuda.h>
#include <cuda_runtime.h>

#define CU_CHECK(x)                                                         \
    do {                                                                    \
        CUresult r = (x);                                                   \
        if (r != CUDA_SUCCESS) {                                            \
            std::fprintf(stderr, "driver error %d at line %d\n", int(r), __LINE__); \
            std::exit(EXIT_FAILURE);                                        \
        }                                                                   \
    } while (0)

constexpr int GRID = 128;
constexpr size_t kVoxels = size_t(GRID) * GRID * GRID;
constexpr size_t kGridBytes = kVoxels * sizeof(unsigned int);
constexpr int kPoints = 200000;

__global__ void voxelize(const float3 *pts, int n, unsigned int *occ)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float3 p = pts[i];
    int x = min(GRID - 1, max(0, int(p.x * GRID)));
    int y = min(GRID - 1, max(0, int(p.y * GRID)));
    int z = min(GRID - 1, max(0, int(p.z * GRID)));
    atomicAdd(&occ[(z * GRID + y) * GRID + x], 1u);
}

int main()
{
    CU_CHECK(cuInit(0));
    CUdevice dev;
    CUcontext ctx;
    CU_CHECK(cuDeviceGet(&dev, 0));
    CU_CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CU_CHECK(cuCtxSetCurrent(ctx));

    float3 *h_pts = new float3[kPoints];
    for (int i = 0; i < kPoints; ++i)
        h_pts[i] = make_float3((i % 997) / 997.f, (i % 991) / 991.f, (i % 983) / 983.f);
    unsigned int *h_occ = new unsigned int[kVoxels];

    CUdeviceptr d_pts, d_occ;
    CU_CHECK(cuMemAlloc(&d_pts, kPoints * sizeof(float3)));
    CU_CHECK(cuMemAlloc(&d_occ, kGridBytes));
    CU_CHECK(cuMemcpyHtoD(d_pts, h_pts, kPoints * sizeof(float3)));
    CU_CHECK(cuMemsetD32(d_occ, 0, kGridBytes / sizeof(unsigned int)));

    voxelize<<<(kPoints + 255) / 256, 256>>>((const float3 *)d_pts, kPoints, (unsigned int *)d_occ);
    CU_CHECK(cuCtxSynchronize());
    CU_CHECK(cuMemcpyDtoH(h_occ, d_occ, kGridBytes));

    size_t filled = 0;
    for (size_t v = 0; v < kVoxels; ++v) filled += h_occ[v] != 0;
    std::printf("occupied voxels: %zu / %zu\n", filled, kVoxels);

    CU_CHECK(cuMemFree(d_pts));
    CU_CHECK(cuMemFree(d_occ));
    CU_CHECK(cuDevicePrimaryCtxRelease(dev));
    delete[] h_pts;
    delete[] h_occ;
    return 0;
}

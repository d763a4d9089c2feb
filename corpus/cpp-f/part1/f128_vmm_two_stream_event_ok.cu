// case: a tile-based rasteriser maps one VMM allocation at a binning view and a shading view; the binning kernel writes through one view on its stream, records an event, and the shading stream waits on that event before reading through the other view.
// expect: none
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>

#define CK_DRV(x) do { CUresult r = (x); if (r != CUDA_SUCCESS) { const char* n; cuGetErrorName(r, &n); \
    fprintf(stderr, "%s failed: %s\n", #x, n); exit(1); } } while (0)
#define CK_RT(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    fprintf(stderr, "%s failed: %s\n", #x, cudaGetErrorString(e)); exit(1); } } while (0)

constexpr int kTiles = 120 * 68;
constexpr int kMaxPerTile = 256;

__global__ void bin_triangles(const float4* tris, int ntris, int* tile_lists, int* tile_counts) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= ntris) return;
    int tile = (int)(fabsf(tris[t].x) * 7919.f) % kTiles;
    int slot = atomicAdd(&tile_counts[tile], 1);
    if (slot < kMaxPerTile) tile_lists[tile * kMaxPerTile + slot] = t;
}

__global__ void shade_tiles(const int* tile_lists, const int* tile_counts, const float4* tris, float* tile_color) {
    int tile = blockIdx.x * blockDim.x + threadIdx.x;
    if (tile >= kTiles) return;
    int n = min(tile_counts[tile], kMaxPerTile);
    float c = 0.f;
    for (int k = 0; k < n; ++k) c += tris[tile_lists[tile * kMaxPerTile + k]].w;
    tile_color[tile] = c;
}

int main() {
    CK_DRV(cuInit(0));
    CUdevice dev; CK_DRV(cuDeviceGet(&dev, 0));
    CUcontext ctx; CK_DRV(cuDevicePrimaryCtxRetain(&ctx, dev)); CK_DRV(cuCtxSetCurrent(ctx));

    CUmemAllocationProp prop = {};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = 0;
    size_t gran; CK_DRV(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    const size_t lists_bytes = (size_t)kTiles * kMaxPerTile * sizeof(int);
    const size_t bytes = (lists_bytes + kTiles * sizeof(int) + gran - 1) / gran * gran;

    CUmemGenericAllocationHandle h;
    CUdeviceptr bin_view, shade_view;
    CK_DRV(cuMemCreate(&h, bytes, &prop, 0));
    CK_DRV(cuMemAddressReserve(&bin_view, bytes, 0, 0, 0));
    CK_DRV(cuMemAddressReserve(&shade_view, bytes, 0, 0, 0));
    CK_DRV(cuMemMap(bin_view, bytes, 0, h, 0));
    CK_DRV(cuMemMap(shade_view, bytes, 0, h, 0));
    CUmemAccessDesc acc = {};
    acc.location = prop.location;
    acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    CK_DRV(cuMemSetAccess(bin_view, bytes, &acc, 1));
    CK_DRV(cuMemSetAccess(shade_view, bytes, &acc, 1));

    const int ntris = 1 << 20;
    float4* d_tris; float* d_color;
    CK_RT(cudaMalloc(&d_tris, ntris * sizeof(float4)));
    CK_RT(cudaMalloc(&d_color, kTiles * sizeof(float)));
    cudaStream_t bin_s, shade_s;
    CK_RT(cudaStreamCreateWithFlags(&bin_s, cudaStreamNonBlocking));
    CK_RT(cudaStreamCreateWithFlags(&shade_s, cudaStreamNonBlocking));
    cudaEvent_t binned, shaded;
    CK_RT(cudaEventCreateWithFlags(&binned, cudaEventDisableTiming));
    CK_RT(cudaEventCreateWithFlags(&shaded, cudaEventDisableTiming));
    CK_RT(cudaMemsetAsync(d_tris, 0, ntris * sizeof(float4), bin_s));

    for (int frame = 0; frame < 60; ++frame) {
        if (frame > 0) CK_RT(cudaStreamWaitEvent(bin_s, shaded, 0));   // don't re-bin under the shader
        CK_RT(cudaMemsetAsync((void*)(bin_view + lists_bytes), 0, kTiles * sizeof(int), bin_s));
        bin_triangles<<<ntris / 256, 256, 0, bin_s>>>(d_tris, ntris, (int*)bin_view, (int*)(bin_view + lists_bytes));
        CK_RT(cudaEventRecord(binned, bin_s));
        CK_RT(cudaStreamWaitEvent(shade_s, binned, 0));
        shade_tiles<<<(kTiles + 127) / 128, 128, 0, shade_s>>>(
            (const int*)shade_view, (const int*)(shade_view + lists_bytes), d_tris, d_color);
        CK_RT(cudaEventRecord(shaded, shade_s));
    }
    CK_RT(cudaStreamSynchronize(shade_s));
    CK_RT(cudaStreamSynchronize(bin_s));
    printf("rendered 60 frames\n");

    CK_DRV(cuMemUnmap(shade_view, bytes));
    CK_DRV(cuMemUnmap(bin_view, bytes));
    CK_DRV(cuMemRelease(h));
    CK_DRV(cuMemAddressFree(shade_view, bytes));
    CK_DRV(cuMemAddressFree(bin_view, bytes));
    cudaEventDestroy(shaded); cudaEventDestroy(binned);
    cudaStreamDestroy(shade_s); cudaStreamDestroy(bin_s);
    cudaFree(d_color); cudaFree(d_tris);
    return 0;
}

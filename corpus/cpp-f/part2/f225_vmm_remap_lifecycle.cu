// case: A multigrid level buffer is backed by VMM and resized between V-cycles: it syncs, unmaps, maps a new physical allocation into the same reservation, grants access again before the next kernel, and tears down unmap -> release -> address free in order.
// expect: none
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>

#define CHK(x) do { CUresult r_ = (x); if (r_ != CUDA_SUCCESS) { const char* m; cuGetErrorString(r_, &m); \
    fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, m); return 1; } } while (0)

__global__ void restrict_fullweight(const float* fine, float* coarse, int nc) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < nc) coarse[i] = 0.25f * fine[2 * i] + 0.5f * fine[2 * i + 1] + 0.25f * fine[2 * i + 2];
}
__global__ void smooth(float* u, int n, float w) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i > 0 && i < n - 1) u[i] = (1.f - w) * u[i] + 0.5f * w * (u[i - 1] + u[i + 1]);
}

struct Level {
    CUdeviceptr va = 0;
    size_t reserved = 0, mapped = 0;
    CUmemGenericAllocationHandle h = 0;
};

static CUresult map_level(Level& L, size_t bytes, const CUmemAllocationProp& prop, const CUmemAccessDesc& acc) {
    CUresult r = cuMemCreate(&L.h, bytes, &prop, 0);
    if (r != CUDA_SUCCESS) return r;
    if ((r = cuMemMap(L.va, bytes, 0, L.h, 0)) != CUDA_SUCCESS) return r;
    if ((r = cuMemSetAccess(L.va, bytes, &acc, 1)) != CUDA_SUCCESS) return r;
    L.mapped = bytes;
    return CUDA_SUCCESS;
}

static CUresult unmap_level(Level& L, CUstream s) {
    CUresult r = cuStreamSynchronize(s);
    if (r != CUDA_SUCCESS) return r;
    if ((r = cuMemUnmap(L.va, L.mapped)) != CUDA_SUCCESS) return r;
    r = cuMemRelease(L.h);
    L.mapped = 0;
    return r;
}

int main() {
    CHK(cuInit(0));
    CUdevice dev;
    CUcontext ctx;
    CHK(cuDeviceGet(&dev, 0));
    CHK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CHK(cuCtxSetCurrent(ctx));
    CUstream s;
    CHK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));

    CUmemAllocationProp prop = {};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = 0;
    CUmemAccessDesc acc = {};
    acc.location = prop.location;
    acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    size_t gran;
    CHK(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED));

    Level coarse;
    coarse.reserved = 64 * gran;
    CHK(cuMemAddressReserve(&coarse.va, coarse.reserved, 0, 0, 0));

    CUdeviceptr fine;
    const int nf = 1 << 24;
    CHK(cuMemAllocAsync(&fine, (nf + 2) * sizeof(float), s));
    CHK(cuMemsetD32Async(fine, 0x3f800000u, nf + 2, s));

    for (int cycle = 0; cycle < 3; ++cycle) {
        int nc = nf >> (cycle + 1);
        size_t bytes = ((nc * sizeof(float) + gran - 1) / gran) * gran;
        CHK(map_level(coarse, bytes, prop, acc));
        restrict_fullweight<<<(nc + 255) / 256, 256, 0, (cudaStream_t)s>>>((const float*)fine, (float*)coarse.va, nc);
        for (int k = 0; k < 4; ++k) smooth<<<(nc + 255) / 256, 256, 0, (cudaStream_t)s>>>((float*)coarse.va, nc, 0.8f);
        float probe = 0.f;
        CHK(cuMemcpyDtoHAsync(&probe, coarse.va + (nc / 2) * sizeof(float), sizeof(float), s));
        CHK(cuStreamSynchronize(s));
        printf("cycle %d: coarse[%d] = %f\n", cycle, nc / 2, probe);
        CHK(unmap_level(coarse, s));
    }

    CHK(cuMemFreeAsync(fine, s));
    CHK(cuStreamSynchronize(s));
    CHK(cuMemAddressFree(coarse.va, coarse.reserved));
    CHK(cuStreamDestroy(s));
    CHK(cuDevicePrimaryCtxRelease(dev));
    return 0;
}

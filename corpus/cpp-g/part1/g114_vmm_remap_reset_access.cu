// case: One reserved VA range is mapped to generation-0 memory, granted access, used, synchronized and unmapped, then remapped to a new physical allocation and granted access again before the next kernel; teardown unmaps before cuMemAddressFree.
// expect: none
#include <cuda.h>
#include <cstdio>
#include <cstdlib>

#define CK(x) do { CUresult r = (x); if (r != CUDA_SUCCESS) { const char* s; cuGetErrorString(r, &s); \
    std::printf("%s -> %s\n", #x, s); std::exit(1); } } while (0)

__global__ void stamp(unsigned* p, size_t n, unsigned gen) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) p[i] = (gen << 24) | unsigned(i & 0xffffff);
}

static CUmemAccessDesc rw_access(int device) {
    CUmemAccessDesc d = {};
    d.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    d.location.id = device;
    d.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    return d;
}

int main() {
    CK(cuInit(0));
    CUdevice dev; CK(cuDeviceGet(&dev, 0));
    CUcontext ctx; CK(cuDevicePrimaryCtxRetain(&ctx, dev)); CK(cuCtxSetCurrent(ctx));
    CUstream stream; CK(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));

    CUmemAllocationProp prop = {};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = 0;
    size_t gran; CK(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    const size_t size = 16 * gran;
    const size_t n = size / sizeof(unsigned);
    const CUmemAccessDesc acc = rw_access(0);

    CUdeviceptr va; CK(cuMemAddressReserve(&va, size, 0, 0, 0));
    CUmemGenericAllocationHandle gen0, gen1;
    CK(cuMemCreate(&gen0, size, &prop, 0));
    CK(cuMemCreate(&gen1, size, &prop, 0));

    // generation 0
    CK(cuMemMap(va, size, 0, gen0, 0));
    CK(cuMemSetAccess(va, size, &acc, 1));
    CK(cuMemsetD32Async(va, 0, n, stream));
    stamp<<<unsigned((n + 255) / 256), 256, 0, (cudaStream_t)stream>>>((unsigned*)va, n, 0);
    CK(cuStreamSynchronize(stream));
    CK(cuMemUnmap(va, size));

    // generation 1: a fresh mapping has no access until granted again
    CK(cuMemMap(va, size, 0, gen1, 0));
    CK(cuMemSetAccess(va, size, &acc, 1));
    stamp<<<unsigned((n + 255) / 256), 256, 0, (cudaStream_t)stream>>>((unsigned*)va, n, 1);
    unsigned first = 0;
    CK(cuMemcpyDtoHAsync(&first, va, sizeof(first), stream));
    CK(cuStreamSynchronize(stream));
    std::printf("first word 0x%08x (expect 0x01000000)\n", first);

    CK(cuMemUnmap(va, size));
    CK(cuMemRelease(gen1));
    CK(cuMemRelease(gen0));
    CK(cuMemAddressFree(va, size));
    CK(cuStreamDestroy(stream));
    CK(cuDevicePrimaryCtxRelease(dev));
    return 0;
}

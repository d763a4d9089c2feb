// case: a VMM-backed arena clears its first chunk with cuMemsetD32Async before cuMemSetAccess grants the device access, and its teardown frees the reserved range before unmapping the chunk
// expect: vmm_lifecycle=2
#include <cuda.h>
#include <cstdio>
#include <cstdlib>

#define CU_CHECK(call) do { CUresult r_ = (call); if (r_ != CUDA_SUCCESS) { \
    const char* msg = nullptr; cuGetErrorString(r_, &msg); \
    fprintf(stderr, "%s failed: %s\n", #call, msg ? msg : "?"); exit(1); } } while (0)

struct VmmArena {
    CUdeviceptr base = 0;
    size_t reserved = 0;
    size_t chunk = 0;
    CUmemGenericAllocationHandle handle = 0;
    CUmemAllocationProp prop = {};
};

static void arena_create(VmmArena& a, int device, size_t reserve_bytes, CUstream s) {
    a.prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    a.prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    a.prop.location.id = device;
    CU_CHECK(cuMemGetAllocationGranularity(&a.chunk, &a.prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED));
    a.reserved = ((reserve_bytes + a.chunk - 1) / a.chunk) * a.chunk;
    CU_CHECK(cuMemAddressReserve(&a.base, a.reserved, 0, 0, 0));
    CU_CHECK(cuMemCreate(&a.handle, a.chunk, &a.prop, 0));
    CU_CHECK(cuMemMap(a.base, a.chunk, 0, a.handle, 0));
    CU_CHECK(cuMemsetD32Async(a.base, 0, a.chunk / 4, s)); // EXPECT: vmm_lifecycle

    CUmemAccessDesc access = {};
    access.location = a.prop.location;
    access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    CU_CHECK(cuMemSetAccess(a.base, a.chunk, &access, 1));
}

static void arena_destroy(VmmArena& a) {
    CU_CHECK(cuMemAddressFree(a.base, a.reserved)); // EXPECT: vmm_lifecycle
    CU_CHECK(cuMemUnmap(a.base, a.chunk));
    CU_CHECK(cuMemRelease(a.handle));
}

int main() {
    CU_CHECK(cuInit(0));
    CUdevice dev;
    CU_CHECK(cuDeviceGet(&dev, 0));
    CUcontext ctx;
    CU_CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CU_CHECK(cuCtxSetCurrent(ctx));
    CUstream s;
    CU_CHECK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));

    VmmArena arena;
    arena_create(arena, 0, 64u << 20, s);
    CU_CHECK(cuStreamSynchronize(s));

    unsigned int probe[16];
    CU_CHECK(cuMemcpyDtoH(probe, arena.base, sizeof(probe)));
    printf("arena at %p, chunk %zu bytes, probe %u\n", (void*)arena.base, arena.chunk, probe[0]);

    arena_destroy(arena);
    CU_CHECK(cuStreamDestroy(s));
    CU_CHECK(cuDevicePrimaryCtxRelease(dev));
    return 0;
}

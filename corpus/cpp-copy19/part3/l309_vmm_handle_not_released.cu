// case: a VMM example creates a physical allocation with cuMemCreate, maps it, uses it, unmaps it and frees the range, but never calls cuMemRelease on the handle
// expect: device_memory_leak=1
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda.h>

#define CU(call)                                                             \
    do {                                                                     \
        CUresult rc = (call);                                                \
        if (rc != CUDA_SUCCESS) {                                            \
            const char* s = "?";                                             \
            cuGetErrorName(rc, &s);                                          \
            fprintf(stderr, "%s failed: %s\n", #call, s);                    \
            abort();                                                         \
        }                                                                    \
    } while (0)

#define ELEMS (1 << 20)

static size_t round_up(size_t x, size_t g) { return ((x + g - 1) / g) * g; }

int main() {
    CU(cuInit(0));
    CUdevice dev;
    CU(cuDeviceGet(&dev, 0));
    CUcontext ctx;
    CU(cuDevicePrimaryCtxRetain(&ctx, dev));
    CU(cuCtxSetCurrent(ctx));

    CUmemAllocationProp prop = {};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = dev;

    size_t gran = 0;
    CU(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    const size_t bytes = ELEMS * sizeof(unsigned);
    const size_t size = round_up(bytes, gran);

    CUmemGenericAllocationHandle handle;
    CU(cuMemCreate(&handle, size, &prop, 0)); // EXPECT: device_memory_leak

    CUdeviceptr va = 0;
    CU(cuMemAddressReserve(&va, size, 0, 0, 0));
    CU(cuMemMap(va, size, 0, handle, 0));

    CUmemAccessDesc access = {};
    access.location = prop.location;
    access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    CU(cuMemSetAccess(va, size, &access, 1));

    CU(cuMemsetD32(va, 0x3F800000u, ELEMS));
    std::vector<unsigned> host(ELEMS);
    CU(cuMemcpyDtoH(host.data(), va, bytes));
    CU(cuCtxSynchronize());

    size_t ok = 0;
    for (unsigned v : host) ok += (v == 0x3F800000u);
    printf("%zu of %d words hold 1.0f\n", ok, ELEMS);

    CU(cuMemUnmap(va, size));
    CU(cuMemAddressFree(va, size));
    CU(cuDevicePrimaryCtxRelease(dev));
    return ok == ELEMS ? 0 : 1;
}

// case: a VMM-backed buffer maps a cuMemCreate allocation, releases the handle right after mapping (the mapping keeps the memory alive), uses it, then unmaps and frees the range
// expect: none
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda.h>

#define CU_CHECK(expr)                                                    \
    do {                                                                  \
        CUresult _r = (expr);                                             \
        if (_r != CUDA_SUCCESS) {                                         \
            const char* _n = "";                                          \
            cuGetErrorName(_r, &_n);                                      \
            std::fprintf(stderr, "%s:%d %s -> %s\n", __FILE__, __LINE__,  \
                         #expr, _n);                                      \
            std::exit(1);                                                 \
        }                                                                 \
    } while (0)

constexpr size_t kElems = 8u << 20;

struct VmmBuffer {
    CUdeviceptr va = 0;
    size_t size = 0;

    void create(CUdevice dev, size_t bytes) {
        CUmemAllocationProp prop = {};
        prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
        prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        prop.location.id = (int)dev;
        size_t gran = 0;
        CU_CHECK(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED));
        size = (bytes + gran - 1) / gran * gran;

        CUmemGenericAllocationHandle h;
        CU_CHECK(cuMemCreate(&h, size, &prop, 0));
        CU_CHECK(cuMemAddressReserve(&va, size, gran, 0, 0));
        CU_CHECK(cuMemMap(va, size, 0, h, 0));
        CU_CHECK(cuMemRelease(h));

        CUmemAccessDesc desc = {};
        desc.location = prop.location;
        desc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
        CU_CHECK(cuMemSetAccess(va, size, &desc, 1));
    }

    void destroy() {
        CU_CHECK(cuMemUnmap(va, size));
        CU_CHECK(cuMemAddressFree(va, size));
        va = 0;
        size = 0;
    }
};

int main() {
    CU_CHECK(cuInit(0));
    CUdevice dev;
    CU_CHECK(cuDeviceGet(&dev, 0));
    CUcontext ctx;
    CU_CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CU_CHECK(cuCtxSetCurrent(ctx));

    VmmBuffer buf;
    buf.create(dev, kElems * sizeof(float));
    CU_CHECK(cuMemsetD32(buf.va, 0x40490FDBu, kElems));  // 3.14159f

    std::vector<float> host(kElems);
    CU_CHECK(cuMemcpyDtoH(host.data(), buf.va, kElems * sizeof(float)));
    std::printf("host[0] = %f, host[last] = %f\n", host[0], host[kElems - 1]);

    buf.destroy();
    CU_CHECK(cuDevicePrimaryCtxRelease(dev));
    return 0;
}

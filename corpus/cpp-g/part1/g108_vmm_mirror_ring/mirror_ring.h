#pragma once
#include <cuda.h>
#include <cstdio>
#include <cstdlib>

#define DRV_CHECK(x)                                                        \
    do {                                                                    \
        CUresult r_ = (x);                                                  \
        if (r_ != CUDA_SUCCESS) {                                           \
            const char* msg_ = nullptr;                                     \
            cuGetErrorString(r_, &msg_);                                    \
            std::fprintf(stderr, "%s failed: %s\n", #x, msg_);              \
            std::exit(1);                                                   \
        }                                                                   \
    } while (0)

// A ring whose physical pages are mapped twice back to back, so that
// accesses running past the end wrap around without modulo arithmetic.
struct MirrorRing {
    CUdeviceptr base = 0;
    size_t size = 0;
    CUmemGenericAllocationHandle handle = 0;

    void create(int device, size_t min_bytes) {
        CUmemAllocationProp prop = {};
        prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
        prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        prop.location.id = device;
        size_t gran = 0;
        DRV_CHECK(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED));
        size = ((min_bytes + gran - 1) / gran) * gran;

        DRV_CHECK(cuMemAddressReserve(&base, 2 * size, gran, 0, 0));
        DRV_CHECK(cuMemCreate(&handle, size, &prop, 0));
        DRV_CHECK(cuMemMap(base, size, 0, handle, 0));
        DRV_CHECK(cuMemMap(base + size, size, 0, handle, 0));

        CUmemAccessDesc access = {};
        access.location = prop.location;
        access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
        DRV_CHECK(cuMemSetAccess(base, 2 * size, &access, 1));
    }

    void destroy() {
        DRV_CHECK(cuMemUnmap(base, size));
        DRV_CHECK(cuMemUnmap(base + size, size));
        DRV_CHECK(cuMemRelease(handle));
        DRV_CHECK(cuMemAddressFree(base, 2 * size));
    }
};

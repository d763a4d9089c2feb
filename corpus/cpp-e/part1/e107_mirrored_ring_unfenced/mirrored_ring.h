#pragma once
#include <cuda.h>
#include <cstdio>
#include <cstdlib>

#define CU_CHECK(x) do { CUresult r_ = (x); if (r_ != CUDA_SUCCESS) { const char* s_ = nullptr; \
    cuGetErrorString(r_, &s_); std::fprintf(stderr, "%s: %s\n", #x, s_ ? s_ : "?"); std::abort(); } } while (0)

// One physical allocation mapped twice, back to back, so a window that wraps
// around the end of the ring is contiguous in virtual memory.
struct MirroredRing {
    CUdeviceptr base = 0;
    size_t size = 0;
    CUmemGenericAllocationHandle handle = 0;

    explicit MirroredRing(int device) {
        CUmemAllocationProp prop = {};
        prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
        prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        prop.location.id = device;
        CU_CHECK(cuMemGetAllocationGranularity(&size, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
        CU_CHECK(cuMemCreate(&handle, size, &prop, 0));
        CU_CHECK(cuMemAddressReserve(&base, 2 * size, size, 0, 0));
        CU_CHECK(cuMemMap(base, size, 0, handle, 0));
        CU_CHECK(cuMemMap(base + size, size, 0, handle, 0));
        CUmemAccessDesc acc = {};
        acc.location = prop.location;
        acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
        CU_CHECK(cuMemSetAccess(base, 2 * size, &acc, 1));
    }
    ~MirroredRing() {
        cuMemUnmap(base + size, size);
        cuMemUnmap(base, size);
        cuMemRelease(handle);
        cuMemAddressFree(base, 2 * size);
    }
    float* primary() const { return reinterpret_cast<float*>(base); }
    float* mirror() const { return reinterpret_cast<float*>(base + size); }
    int capacity() const { return (int)(size / sizeof(float)); }
};

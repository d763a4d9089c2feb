// Helpers for exposing one physical allocation through several virtual views.
#pragma once
#include <cuda.h>
#include <cstdio>
#include <cstdlib>

#define CU_CHECK(call)                                                            \
    do {                                                                          \
        CUresult r_ = (call);                                                     \
        if (r_ != CUDA_SUCCESS) {                                                 \
            const char* s_ = nullptr;                                             \
            cuGetErrorName(r_, &s_);                                              \
            fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, s_ ? s_ : "?");      \
            std::exit(1);                                                         \
        }                                                                         \
    } while (0)

struct View {
    CUdeviceptr va;
    size_t size;
};

inline CUmemAllocationProp device_prop(int device)
{
    CUmemAllocationProp prop = {};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = device;
    return prop;
}

inline size_t round_to_granularity(size_t bytes, int device)
{
    CUmemAllocationProp prop = device_prop(device);
    size_t g = 0;
    CU_CHECK(cuMemGetAllocationGranularity(&g, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    return (bytes + g - 1) / g * g;
}

inline CUmemGenericAllocationHandle create_physical(int device, size_t size)
{
    CUmemAllocationProp prop = device_prop(device);
    CUmemGenericAllocationHandle h;
    CU_CHECK(cuMemCreate(&h, size, &prop, 0));
    return h;
}

// Reserves a fresh range, maps the allocation there and grants the device access.
inline View map_view(CUmemGenericAllocationHandle h, size_t size, int device)
{
    View v{0, size};
    CU_CHECK(cuMemAddressReserve(&v.va, size, 0, 0, 0));
    CU_CHECK(cuMemMap(v.va, size, 0, h, 0));
    CUmemAccessDesc acc = {};
    acc.location = device_prop(device).location;
    acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    CU_CHECK(cuMemSetAccess(v.va, size, &acc, 1));
    return v;
}

inline void unmap_view(const View& v)
{
    CU_CHECK(cuMemUnmap(v.va, v.size));
    CU_CHECK(cuMemAddressFree(v.va, v.size));
}

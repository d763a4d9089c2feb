#pragma once
#include <cstdio>
#include <cstdlib>
#include <cuda.h>

#define CU_CHECK(x) do { CUresult r_ = (x); if (r_ != CUDA_SUCCESS) { const char* s_ = nullptr; \
    cuGetErrorString(r_, &s_); fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, s_ ? s_ : "?"); exit(1); } } while (0)

inline CUmemAllocationProp pinned_device_prop(int device) {
    CUmemAllocationProp prop = {};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = device;
    return prop;
}

inline size_t round_to_granularity(const CUmemAllocationProp& prop, size_t bytes) {
    size_t gran = 0;
    CU_CHECK(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    return ((bytes + gran - 1) / gran) * gran;
}

inline CUmemAccessDesc rw_access(int device) {
    CUmemAccessDesc desc = {};
    desc.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    desc.location.id = device;
    desc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    return desc;
}

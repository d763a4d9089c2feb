#pragma once
#include <cuda.h>
#include <cstdio>
#include <cstdlib>

#define CU_CHECK(x) do { CUresult r__ = (x); if (r__ != CUDA_SUCCESS) { \
    std::fprintf(stderr, "%s:%d %s = %d\n", __FILE__, __LINE__, #x, (int)r__); std::exit(2); } } while (0)

// Reserve a fresh range, map `handle` into it and grant the device read/write access.
static CUdeviceptr map_view(CUmemGenericAllocationHandle handle, size_t size, int dev)
{
    CUdeviceptr va = 0;
    CU_CHECK(cuMemAddressReserve(&va, size, 0, 0, 0));
    CU_CHECK(cuMemMap(va, size, 0, handle, 0));
    CUmemAccessDesc desc = {};
    desc.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    desc.location.id = dev;
    desc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    CU_CHECK(cuMemSetAccess(va, size, &desc, 1));
    return va;
}

// Unmap first, then give the range back.
static void unmap_view(CUdeviceptr va, size_t size)
{
    CU_CHECK(cuMemUnmap(va, size));
    CU_CHECK(cuMemAddressFree(va, size));
}

static CUmemGenericAllocationHandle create_physical(size_t* size, int dev)
{
    CUmemAllocationProp prop = {};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = dev;
    size_t g = 0;
    CU_CHECK(cuMemGetAllocationGranularity(&g, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    *size = (*size + g - 1) / g * g;
    CUmemGenericAllocationHandle h;
    CU_CHECK(cuMemCreate(&h, *size, &prop, 0));
    return h;
}

#pragma once
#include <cuda.h>
#include <cstdio>
#include <cstdlib>

#define DRV(call) do { CUresult r_ = (call); if (r_ != CUDA_SUCCESS) { \
    const char* s_ = nullptr; cuGetErrorString(r_, &s_); \
    std::fprintf(stderr, "%s:%d %s -> %s\n", __FILE__, __LINE__, #call, s_ ? s_ : "?"); std::exit(1); } } while (0)

static inline CUmemAllocationProp device_prop(int dev)
{
    CUmemAllocationProp prop = {};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = dev;
    return prop;
}

static inline size_t round_up(size_t n, size_t g) { return (n + g - 1) / g * g; }

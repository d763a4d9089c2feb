// Minimal VMM block allocator used by the solver: reserve, create, map, set
// access; release the handle right away (the mapping keeps the memory alive);
// teardown unmaps before freeing the range.
#pragma once
#include <cuda.h>
#include <cstddef>
#include <cstdio>
#include <cstdlib>

#define CU_CHECK(call)                                                          \
  do {                                                                          \
    CUresult r_ = (call);                                                       \
    if (r_ != CUDA_SUCCESS) {                                                   \
      std::fprintf(stderr, "%s:%d: %s -> %d\n", __FILE__, __LINE__, #call, int(r_)); \
      std::exit(1);                                                             \
    }                                                                           \
  } while (0)

struct VmmBlock {
  CUdeviceptr ptr = 0;
  size_t size = 0;
};

inline size_t vmm_granularity(int device) {
  CUmemAllocationProp prop = {};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = device;
  size_t gran = 0;
  CU_CHECK(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
  return gran;
}

inline VmmBlock vmm_alloc(size_t bytes, int device) {
  CUmemAllocationProp prop = {};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = device;
  const size_t gran = vmm_granularity(device);
  VmmBlock b;
  b.size = (bytes + gran - 1) / gran * gran;

  CUmemGenericAllocationHandle handle = 0;
  CU_CHECK(cuMemCreate(&handle, b.size, &prop, 0));
  CU_CHECK(cuMemAddressReserve(&b.ptr, b.size, 0, 0, 0));
  CU_CHECK(cuMemMap(b.ptr, b.size, 0, handle, 0));
  CU_CHECK(cuMemRelease(handle));  // allowed: freed when the mapping goes

  CUmemAccessDesc desc = {};
  desc.location = prop.location;
  desc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  CU_CHECK(cuMemSetAccess(b.ptr, b.size, &desc, 1));
  return b;
}

inline void vmm_free(VmmBlock& b) {
  if (!b.ptr) return;
  CU_CHECK(cuMemUnmap(b.ptr, b.size));
  CU_CHECK(cuMemAddressFree(b.ptr, b.size));
  b = VmmBlock{};
}

#pragma once
// Two virtual views of one physical allocation, each in its own reserved range: the
// producer engine writes through one view, the consumer engine reads through the other.
#include <cuda.h>
#include <cstdio>
#include <cstdlib>

#define VMM_CHECK(call)                                                        \
  do {                                                                         \
    CUresult r_ = (call);                                                      \
    if (r_ != CUDA_SUCCESS) {                                                  \
      const char* n_ = "?";                                                    \
      cuGetErrorName(r_, &n_);                                                 \
      std::fprintf(stderr, "%s -> %s\n", #call, n_);                           \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

struct AliasedBuffer {
  CUdeviceptr producer_view = 0;
  CUdeviceptr consumer_view = 0;
  size_t size = 0;
  CUmemGenericAllocationHandle handle = 0;
};

inline void aliased_create(AliasedBuffer& b, size_t min_bytes, int device) {
  CUmemAllocationProp prop = {};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = device;
  size_t gran = 0;
  VMM_CHECK(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
  b.size = ((min_bytes + gran - 1) / gran) * gran;
  VMM_CHECK(cuMemCreate(&b.handle, b.size, &prop, 0));
  VMM_CHECK(cuMemAddressReserve(&b.producer_view, b.size, 0, 0, 0));
  VMM_CHECK(cuMemAddressReserve(&b.consumer_view, b.size, 0, 0, 0));
  VMM_CHECK(cuMemMap(b.producer_view, b.size, 0, b.handle, 0));
  VMM_CHECK(cuMemMap(b.consumer_view, b.size, 0, b.handle, 0));
  CUmemAccessDesc acc = {};
  acc.location = prop.location;
  acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  VMM_CHECK(cuMemSetAccess(b.producer_view, b.size, &acc, 1));
  VMM_CHECK(cuMemSetAccess(b.consumer_view, b.size, &acc, 1));
}

// The caller must have waited for all work using either view.
inline void aliased_destroy(AliasedBuffer& b) {
  VMM_CHECK(cuMemUnmap(b.consumer_view, b.size));
  VMM_CHECK(cuMemUnmap(b.producer_view, b.size));
  VMM_CHECK(cuMemRelease(b.handle));
  VMM_CHECK(cuMemAddressFree(b.consumer_view, b.size));
  VMM_CHECK(cuMemAddressFree(b.producer_view, b.size));
  b = AliasedBuffer{};
}

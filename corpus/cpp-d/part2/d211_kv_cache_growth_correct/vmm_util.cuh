#pragma once
// Thin helpers around the CUDA driver's virtual memory management calls.
#include <cuda.h>
#include <cstddef>
#include <cstdio>
#include <cstdlib>

#define CU_CHECK(call)                                                       \
  do {                                                                       \
    CUresult r_ = (call);                                                    \
    if (r_ != CUDA_SUCCESS) {                                                \
      const char* s_ = nullptr;                                              \
      cuGetErrorName(r_, &s_);                                               \
      std::fprintf(stderr, "%s failed: %s\n", #call, s_ ? s_ : "?");         \
      std::exit(1);                                                          \
    }                                                                        \
  } while (0)

inline CUmemAllocationProp devicePinnedProp(int device) {
  CUmemAllocationProp prop = {};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = device;
  return prop;
}

inline CUmemAccessDesc readWriteFor(int device) {
  CUmemAccessDesc desc = {};
  desc.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  desc.location.id = device;
  desc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  return desc;
}

inline size_t roundUp(size_t x, size_t g) { return (x + g - 1) / g * g; }

// VMM helpers of case n121: physical allocation, mapping and access grant are separate steps.
#pragma once
#include <cuda.h>
#include <cstddef>
#include <cstdio>
#include <cstdlib>

#define CU_CHECK(call)                                                          \
  do {                                                                          \
    CUresult r_ = (call);                                                       \
    if (r_ != CUDA_SUCCESS) {                                                   \
      const char* msg_ = nullptr;                                               \
      cuGetErrorString(r_, &msg_);                                              \
      fprintf(stderr, "%s failed: %s\n", #call, msg_ ? msg_ : "unknown");       \
      exit(EXIT_FAILURE);                                                       \
    }                                                                           \
  } while (0)

static inline CUmemAllocationProp vmm_device_prop(CUdevice dev) {
  CUmemAllocationProp prop = {};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = dev;
  return prop;
}

static inline size_t vmm_granularity(CUdevice dev) {
  CUmemAllocationProp prop = vmm_device_prop(dev);
  size_t gran = 0;
  CU_CHECK(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
  return gran;
}

static inline size_t vmm_round_up(size_t bytes, size_t gran) { return (bytes + gran - 1) / gran * gran; }

static inline CUmemGenericAllocationHandle vmm_create(size_t bytes, CUdevice dev) {
  CUmemAllocationProp prop = vmm_device_prop(dev);
  CUmemGenericAllocationHandle h;
  CU_CHECK(cuMemCreate(&h, bytes, &prop, 0));
  return h;
}

static inline void vmm_grant(CUdeviceptr va, size_t bytes, CUdevice dev) {
  CUmemAccessDesc access = {};
  access.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  access.location.id = dev;
  access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  CU_CHECK(cuMemSetAccess(va, bytes, &access, 1));
}

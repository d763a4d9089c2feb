#pragma once
// A device ring buffer whose physical storage is mapped twice, back to back, in one
// reserved virtual range: any window of up to capacity() elements is contiguous.
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define CU_CHECK(call)                                                         \
  do {                                                                         \
    CUresult r_ = (call);                                                      \
    if (r_ != CUDA_SUCCESS) {                                                  \
      const char* msg_ = nullptr;                                              \
      cuGetErrorString(r_, &msg_);                                             \
      std::fprintf(stderr, "%s failed: %s\n", #call, msg_ ? msg_ : "?");       \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

template <typename T>
class MirroredRing {
 public:
  explicit MirroredRing(size_t min_elems, int device = 0) {
    CUmemAllocationProp prop = {};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = device;
    size_t gran = 0;
    CU_CHECK(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    size_ = ((min_elems * sizeof(T) + gran - 1) / gran) * gran;

    CU_CHECK(cuMemCreate(&handle_, size_, &prop, 0));
    CU_CHECK(cuMemAddressReserve(&base_, 2 * size_, gran, 0, 0));
    CU_CHECK(cuMemMap(base_, size_, 0, handle_, 0));          // canonical view
    CU_CHECK(cuMemMap(base_ + size_, size_, 0, handle_, 0));  // mirror view

    CUmemAccessDesc access = {};
    access.location = prop.location;
    access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    CU_CHECK(cuMemSetAccess(base_, 2 * size_, &access, 1));
  }

  ~MirroredRing() {
    cuMemUnmap(base_ + size_, size_);
    cuMemUnmap(base_, size_);
    cuMemRelease(handle_);
    cuMemAddressFree(base_, 2 * size_);
  }

  MirroredRing(const MirroredRing&) = delete;
  MirroredRing& operator=(const MirroredRing&) = delete;

  T* lo() const { return reinterpret_cast<T*>(base_); }
  T* hi() const { return reinterpret_cast<T*>(base_ + size_); }
  CUdeviceptr raw() const { return base_; }
  size_t capacity() const { return size_ / sizeof(T); }

 private:
  CUdeviceptr base_ = 0;
  size_t size_ = 0;
  CUmemGenericAllocationHandle handle_ = 0;
};

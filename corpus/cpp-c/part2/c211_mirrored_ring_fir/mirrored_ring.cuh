#pragma once
#include <cuda.h>
#include <cstddef>
#include <cstdio>
#include <cstdlib>

#define DRV(call)                                                                   \
    do {                                                                            \
        CUresult res_ = (call);                                                     \
        if (res_ != CUDA_SUCCESS) {                                                 \
            const char* name_ = "";                                                 \
            cuGetErrorName(res_, &name_);                                           \
            std::fprintf(stderr, "%s:%d %s -> %s\n", __FILE__, __LINE__, #call, name_); \
            std::exit(3);                                                           \
        }                                                                           \
    } while (0)

// One physical allocation mapped twice, back to back, so that a window that runs
// past the end of the ring can be read as one contiguous span.
class MirroredRing {
public:
    MirroredRing(int device, size_t min_bytes) {
        CUmemAllocationProp prop = {};
        prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
        prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        prop.location.id = device;
        size_t gran = 0;
        DRV(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
        size_ = (min_bytes + gran - 1) / gran * gran;

        DRV(cuMemCreate(&handle_, size_, &prop, 0));
        DRV(cuMemAddressReserve(&base_, 2 * size_, 0, 0, 0));
        DRV(cuMemMap(base_, size_, 0, handle_, 0));
        DRV(cuMemMap(base_ + size_, size_, 0, handle_, 0));

        CUmemAccessDesc acc = {};
        acc.location = prop.location;
        acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
        DRV(cuMemSetAccess(base_, 2 * size_, &acc, 1));
    }

    ~MirroredRing() {
        cuMemUnmap(base_ + size_, size_);
        cuMemUnmap(base_, size_);
        cuMemRelease(handle_);
        cuMemAddressFree(base_, 2 * size_);
    }

    template <typename T> T* primary() const { return reinterpret_cast<T*>(base_); }
    template <typename T> T* mirror() const { return reinterpret_cast<T*>(base_ + size_); }
    size_t bytes() const { return size_; }

private:
    CUmemGenericAllocationHandle handle_ = 0;
    CUdeviceptr base_ = 0;
    size_t size_ = 0;
};

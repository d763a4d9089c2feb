#pragma once
#include <cuda.h>
#include <cstddef>
#include <stdexcept>
#include <string>

#define RING_CU(call)                                                                  \
    do {                                                                               \
        CUresult r_ = (call);                                                          \
        if (r_ != CUDA_SUCCESS) throw std::runtime_error(std::string("driver: ") + #call); \
    } while (0)

// One physical allocation mapped twice, back to back, so that a window starting near the end of
// the ring can be read linearly through the second view without wrapping.
class MirroredRing {
public:
    MirroredRing(int device, size_t min_bytes) {
        CUmemAllocationProp prop = {};
        prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
        prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        prop.location.id = device;
        size_t gran = 0;
        RING_CU(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED));
        size_ = ((min_bytes + gran - 1) / gran) * gran;

        RING_CU(cuMemCreate(&handle_, size_, &prop, 0));
        RING_CU(cuMemAddressReserve(&base_, 2 * size_, 0, 0, 0));
        RING_CU(cuMemMap(base_, size_, 0, handle_, 0));
        RING_CU(cuMemMap(base_ + size_, size_, 0, handle_, 0));

        CUmemAccessDesc access = {};
        access.location = prop.location;
        access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
        RING_CU(cuMemSetAccess(base_, 2 * size_, &access, 1));
    }
    ~MirroredRing() {
        cuCtxSynchronize();
        cuMemUnmap(base_, size_);
        cuMemUnmap(base_ + size_, size_);
        cuMemRelease(handle_);
        cuMemAddressFree(base_, 2 * size_);
    }
    MirroredRing(const MirroredRing&) = delete;
    MirroredRing& operator=(const MirroredRing&) = delete;

    CUdeviceptr primary() const { return base_; }
    CUdeviceptr mirror() const { return base_ + size_; }
    size_t bytes() const { return size_; }

private:
    CUmemGenericAllocationHandle handle_ = 0;
    CUdeviceptr base_ = 0;
    size_t size_ = 0;
};

#pragma once
#include <cuda.h>
#include <cstdio>
#include <cstdlib>

#define CU_CHECK(expr)                                                    \
    do {                                                                  \
        CUresult r_ = (expr);                                             \
        if (r_ != CUDA_SUCCESS) {                                         \
            const char* msg_ = nullptr;                                   \
            cuGetErrorString(r_, &msg_);                                  \
            fprintf(stderr, "%s failed: %s\n", #expr, msg_ ? msg_ : "?"); \
            std::abort();                                                 \
        }                                                                 \
    } while (0)

// One physical allocation mapped twice, back to back, so a record that runs
// past the end of the ring continues at its start without a split.
class MirroredRing {
public:
    MirroredRing(int device, size_t min_bytes) {
        CUmemAllocationProp prop = {};
        prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
        prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        prop.location.id = device;
        size_t gran = 0;
        CU_CHECK(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
        size_ = ((min_bytes + gran - 1) / gran) * gran;

        CU_CHECK(cuMemAddressReserve(&base_, 2 * size_, 0, 0, 0));
        CU_CHECK(cuMemCreate(&handle_, size_, &prop, 0));
        CU_CHECK(cuMemMap(base_, size_, 0, handle_, 0));
        CU_CHECK(cuMemMap(base_ + size_, size_, 0, handle_, 0));

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

    CUdeviceptr lower() const { return base_; }
    CUdeviceptr upper() const { return base_ + size_; }
    size_t bytes() const { return size_; }

private:
    CUdeviceptr base_ = 0;
    size_t size_ = 0;
    CUmemGenericAllocationHandle handle_ = 0;
};

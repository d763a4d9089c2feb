#pragma once
#include <cuda.h>
#include <cstdio>
#include <cstdlib>

#define CU_CHECK(expr)                                                            \
    do {                                                                          \
        CUresult r_ = (expr);                                                     \
        if (r_ != CUDA_SUCCESS) {                                                 \
            const char* msg_ = nullptr;                                           \
            cuGetErrorString(r_, &msg_);                                          \
            std::fprintf(stderr, "%s failed: %s\n", #expr, msg_ ? msg_ : "?");    \
            std::abort();                                                         \
        }                                                                         \
    } while (0)

// A fixed virtual range whose physical backing can be replaced, so that device
// pointers stored in launch parameters and lookup tables stay valid across steps.
class StableArena {
public:
    StableArena(int device, size_t min_bytes) : device_(device) {
        prop_.type = CU_MEM_ALLOCATION_TYPE_PINNED;
        prop_.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        prop_.location.id = device;
        size_t gran = 0;
        CU_CHECK(cuMemGetAllocationGranularity(&gran, &prop_, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED));
        bytes_ = (min_bytes + gran - 1) / gran * gran;
        CU_CHECK(cuMemAddressReserve(&base_, bytes_, 0, 0, 0));
        handle_ = create_backing();
        CU_CHECK(cuMemMap(base_, bytes_, 0, handle_, 0));
        grant(base_, bytes_);
    }

    ~StableArena() {
        cuMemUnmap(base_, bytes_);
        cuMemRelease(handle_);
        cuMemAddressFree(base_, bytes_);
    }

    CUmemGenericAllocationHandle create_backing() const {
        CUmemGenericAllocationHandle h;
        CU_CHECK(cuMemCreate(&h, bytes_, &prop_, 0));
        return h;
    }

    void grant(CUdeviceptr va, size_t len) const {
        CUmemAccessDesc acc = {};
        acc.location = prop_.location;
        acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
        CU_CHECK(cuMemSetAccess(va, len, &acc, 1));
    }

    // Replaces the physical memory behind the range; the old backing is released.
    // The caller must have synchronized all work that used the old backing.
    void adopt(CUmemGenericAllocationHandle fresh) {
        CU_CHECK(cuMemUnmap(base_, bytes_));
        CU_CHECK(cuMemMap(base_, bytes_, 0, fresh, 0));
        CU_CHECK(cuMemRelease(handle_));
        handle_ = fresh;
    }

    CUdeviceptr base() const { return base_; }
    size_t bytes() const { return bytes_; }

private:
    int device_;
    CUmemAllocationProp prop_ = {};
    CUdeviceptr base_ = 0;
    size_t bytes_ = 0;
    CUmemGenericAllocationHandle handle_ = 0;
};

#pragma once
// A "magic" ring buffer: one physical allocation mapped twice, back to back, so that a
// window starting near the end of the ring can be read contiguously through the second view.
#include <cuda.h>
#include <cstdio>
#include <cstdlib>

#define DRV_CHECK(x) do { CUresult r_ = (x); if (r_ != CUDA_SUCCESS) { const char* m_; \
    cuGetErrorString(r_, &m_); fprintf(stderr, "%s: %s\n", #x, m_); std::abort(); } } while (0)

class MirrorRing {
public:
    explicit MirrorRing(size_t min_bytes, int device = 0) {
        CUmemAllocationProp prop = {};
        prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
        prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        prop.location.id = device;
        size_t gran = 0;
        DRV_CHECK(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED));
        size_ = ((min_bytes + gran - 1) / gran) * gran;

        DRV_CHECK(cuMemCreate(&handle_, size_, &prop, 0));
        DRV_CHECK(cuMemAddressReserve(&base_, 2 * size_, 0, 0, 0));
        DRV_CHECK(cuMemMap(base_, size_, 0, handle_, 0));
        DRV_CHECK(cuMemMap(base_ + size_, size_, 0, handle_, 0));

        CUmemAccessDesc access = {};
        access.location = prop.location;
        access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
        DRV_CHECK(cuMemSetAccess(base_, 2 * size_, &access, 1));
    }

    ~MirrorRing() {
        cuCtxSynchronize();
        cuMemUnmap(base_, size_);
        cuMemUnmap(base_ + size_, size_);
        cuMemRelease(handle_);
        cuMemAddressFree(base_, 2 * size_);
    }

    float* lower() const { return reinterpret_cast<float*>(base_); }
    float* upper() const { return reinterpret_cast<float*>(base_ + size_); }
    size_t capacity() const { return size_ / sizeof(float); }

private:
    CUmemGenericAllocationHandle handle_ = 0;
    CUdeviceptr base_ = 0;
    size_t size_ = 0;
};

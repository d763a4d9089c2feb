#pragma once
#include <cuda.h>
#include <cstddef>
#include <stdexcept>

#ifndef PKT_CU_CHECK
#define PKT_CU_CHECK(x)                                                        \
    do {                                                                       \
        if ((x) != CUDA_SUCCESS) throw std::runtime_error("CUDA driver: " #x); \
    } while (0)
#endif

namespace pkt {

template <typename T>
class DoubleMappedRing {
public:
    explicit DoubleMappedRing(size_t min_elems, int device = 0) {
        prop_.type = CU_MEM_ALLOCATION_TYPE_PINNED;
        prop_.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        prop_.location.id = device;
        size_t gran = 0;
        PKT_CU_CHECK(cuMemGetAllocationGranularity(&gran, &prop_, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
        size_ = ((min_elems * sizeof(T) + gran - 1) / gran) * gran;
        PKT_CU_CHECK(cuMemAddressReserve(&base_, 2 * size_, 0, 0, 0));
        PKT_CU_CHECK(cuMemCreate(&phys_, size_, &prop_, 0));
        PKT_CU_CHECK(cuMemMap(base_, size_, 0, phys_, 0));
        PKT_CU_CHECK(cuMemMap(base_ + size_, size_, 0, phys_, 0));
        PKT_CU_CHECK(cuMemRelease(phys_));  // the mappings keep the memory alive
        CUmemAccessDesc rw = {};
        rw.location = prop_.location;
        rw.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
        PKT_CU_CHECK(cuMemSetAccess(base_, 2 * size_, &rw, 1));
    }
    ~DoubleMappedRing() {
        cuCtxSynchronize();
        cuMemUnmap(base_, size_);
        cuMemUnmap(base_ + size_, size_);
        cuMemAddressFree(base_, 2 * size_);
    }
    DoubleMappedRing(const DoubleMappedRing&) = delete;
    DoubleMappedRing& operator=(const DoubleMappedRing&) = delete;

    T* front() const { return reinterpret_cast<T*>(base_); }
    T* back() const { return reinterpret_cast<T*>(base_ + size_); }
    size_t capacity() const { return size_ / sizeof(T); }

private:
    CUmemAllocationProp prop_ = {};
    CUmemGenericAllocationHandle phys_ = 0;
    CUdeviceptr base_ = 0;
    size_t size_ = 0;
};

}  // namespace pkt

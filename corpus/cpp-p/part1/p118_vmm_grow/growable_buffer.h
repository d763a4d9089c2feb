#pragma once
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda.h>

#define CU_CHECK(x) do { CUresult r_ = (x); if (r_ != CUDA_SUCCESS) { const char* s_ = nullptr; \
    cuGetErrorString(r_, &s_); fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, s_ ? s_ : "?"); exit(1); } } while (0)

// A buffer that reserves a large VA range once and maps physical chunks at its end as it grows.
class GrowableBuffer {
public:
    GrowableBuffer(int device, size_t max_bytes) : device_(device), mapped_(0) {
        prop_ = {};
        prop_.type = CU_MEM_ALLOCATION_TYPE_PINNED;
        prop_.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        prop_.location.id = device;
        CU_CHECK(cuMemGetAllocationGranularity(&gran_, &prop_, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
        reserved_ = round_up(max_bytes);
        CU_CHECK(cuMemAddressReserve(&base_, reserved_, 0, 0, 0));
    }

    ~GrowableBuffer() {
        // callers synchronize before destroying; unmap each chunk, then free the range
        for (size_t i = 0; i < chunks_.size(); ++i) cuMemUnmap(chunks_[i].first, chunks_[i].second);
        cuMemAddressFree(base_, reserved_);
    }

    // Map `bytes` more at the end of what is mapped; returns false when the range is full.
    bool grow(size_t bytes) {
        size_t sz = round_up(bytes);
        if (mapped_ + sz > reserved_) return false;
        CUmemGenericAllocationHandle h;
        CU_CHECK(cuMemCreate(&h, sz, &prop_, 0));
        CUdeviceptr at = base_ + mapped_;
        CU_CHECK(cuMemMap(at, sz, 0, h, 0));
        // the mapping keeps the memory alive: the handle can go now
        CU_CHECK(cuMemRelease(h));
        CUmemAccessDesc access = {};
        access.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        access.location.id = device_;
        access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
        CU_CHECK(cuMemSetAccess(at, sz, &access, 1));
        chunks_.push_back(std::make_pair(at, sz));
        mapped_ += sz;
        return true;
    }

    CUdeviceptr base() const { return base_; }
    size_t mapped() const { return mapped_; }

private:
    size_t round_up(size_t b) const { return (b + gran_ - 1) / gran_ * gran_; }
    int device_;
    CUmemAllocationProp prop_;
    size_t gran_;
    size_t reserved_;
    size_t mapped_;
    CUdeviceptr base_;
    std::vector<std::pair<CUdeviceptr, size_t>> chunks_;
};

#pragma once
#include <cuda.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CU_CHECK(x) do { CUresult r_ = (x); if (r_ != CUDA_SUCCESS) { const char* s_ = nullptr; \
    cuGetErrorString(r_, &s_); std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, s_ ? s_ : "?"); std::exit(1); } } while (0)

// A growable device arena: one VA reservation, physical chunks mapped behind each other.
class VmmArena {
public:
    VmmArena(int device, size_t max_bytes) {
        prop_.type = CU_MEM_ALLOCATION_TYPE_PINNED;
        prop_.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        prop_.location.id = device;
        access_.location = prop_.location;
        access_.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
        CU_CHECK(cuMemGetAllocationGranularity(&gran_, &prop_, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED));
        reserved_ = round_up(max_bytes);
        CU_CHECK(cuMemAddressReserve(&base_, reserved_, 0, 0, 0));
    }

    ~VmmArena() {
        // callers synchronize before the arena goes away; unmap, release, then free the range
        for (size_t i = chunks_.size(); i-- > 0;) {
            CU_CHECK(cuMemUnmap(chunks_[i].va, chunks_[i].bytes));
            CU_CHECK(cuMemRelease(chunks_[i].handle));
        }
        CU_CHECK(cuMemAddressFree(base_, reserved_));
    }

    // make at least `bytes` usable; returns the new end
    size_t grow_to(size_t bytes) {
        bytes = round_up(bytes);
        if (bytes <= mapped_) return mapped_;
        if (bytes > reserved_) { std::fprintf(stderr, "arena exhausted\n"); std::exit(1); }
        Chunk c;
        c.bytes = bytes - mapped_;
        c.va = base_ + mapped_;
        CU_CHECK(cuMemCreate(&c.handle, c.bytes, &prop_, 0));
        CU_CHECK(cuMemMap(c.va, c.bytes, 0, c.handle, 0));
        CU_CHECK(cuMemSetAccess(c.va, c.bytes, &access_, 1)); // every new mapping starts without access
        chunks_.push_back(c);
        mapped_ = bytes;
        return mapped_;
    }

    CUdeviceptr base() const { return base_; }
    size_t mapped() const { return mapped_; }

private:
    struct Chunk { CUdeviceptr va; size_t bytes; CUmemGenericAllocationHandle handle; };
    size_t round_up(size_t b) const { return (b + gran_ - 1) / gran_ * gran_; }

    CUmemAllocationProp prop_ = {};
    CUmemAccessDesc access_ = {};
    size_t gran_ = 0, reserved_ = 0, mapped_ = 0;
    CUdeviceptr base_ = 0;
    std::vector<Chunk> chunks_;
};

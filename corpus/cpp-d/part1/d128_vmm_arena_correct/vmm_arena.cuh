// A growable device arena on the CUDA virtual memory management API.
#pragma once
#include <cuda.h>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <vector>

#define CU_CHECK(call)                                                            \
    do {                                                                          \
        CUresult r_ = (call);                                                     \
        if (r_ != CUDA_SUCCESS) {                                                 \
            const char* s_ = nullptr;                                             \
            cuGetErrorName(r_, &s_);                                              \
            fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, s_ ? s_ : "?");      \
            std::exit(1);                                                         \
        }                                                                         \
    } while (0)

class VmmArena {
public:
    static std::unique_ptr<VmmArena> create(int device, size_t max_bytes)
    {
        return std::unique_ptr<VmmArena>(new VmmArena(device, max_bytes));
    }

    ~VmmArena()
    {
        for (auto it = chunks_.rbegin(); it != chunks_.rend(); ++it) cuMemUnmap(it->va, it->size);
        cuMemAddressFree(base_, reserved_); // every chunk is unmapped by now
    }

    // Maps a new chunk at the end of the arena and returns its address.
    CUdeviceptr grow(size_t bytes)
    {
        const size_t sz = (bytes + gran_ - 1) / gran_ * gran_;
        if (mapped_ + sz > reserved_) throw std::runtime_error("arena exhausted");
        CUmemGenericAllocationHandle h;
        CU_CHECK(cuMemCreate(&h, sz, &prop_, 0));
        const CUdeviceptr va = base_ + mapped_;
        CU_CHECK(cuMemMap(va, sz, 0, h, 0));
        CU_CHECK(cuMemRelease(h)); // the mapping keeps the memory alive until it is unmapped
        CU_CHECK(cuMemSetAccess(va, sz, &access_, 1));
        chunks_.push_back(Chunk{va, sz});
        mapped_ += sz;
        return va;
    }

    size_t mapped() const { return mapped_; }

private:
    VmmArena(int device, size_t max_bytes)
    {
        prop_.type = CU_MEM_ALLOCATION_TYPE_PINNED;
        prop_.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        prop_.location.id = device;
        access_.location = prop_.location;
        access_.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
        CU_CHECK(cuMemGetAllocationGranularity(&gran_, &prop_, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED));
        reserved_ = (max_bytes + gran_ - 1) / gran_ * gran_;
        CU_CHECK(cuMemAddressReserve(&base_, reserved_, 0, 0, 0));
    }

    struct Chunk {
        CUdeviceptr va;
        size_t size;
    };
    CUmemAllocationProp prop_ = {};
    CUmemAccessDesc access_ = {};
    size_t gran_ = 0, reserved_ = 0, mapped_ = 0;
    CUdeviceptr base_ = 0;
    std::vector<Chunk> chunks_;
};

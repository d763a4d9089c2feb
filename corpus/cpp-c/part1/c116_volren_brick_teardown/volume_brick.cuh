// A sparse-volume brick pool backed by the VMM API: one reservation, one physical chunk per
// resident brick. Owned by the renderer; released when the renderer goes away.
#pragma once
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <vector>

inline bool cu_ok(CUresult r, const char* what) {
    if (r == CUDA_SUCCESS) return true;
    const char* s = nullptr;
    cuGetErrorString(r, &s);
    std::fprintf(stderr, "[volume] %s: %s\n", what, s ? s : "?");
    return false;
}

class VolumeBrickPool {
public:
    VolumeBrickPool(int bricks, size_t brick_bytes, int device)
        : bricks_(bricks), device_(device) {
        CUmemAllocationProp prop{};
        prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
        prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        prop.location.id = device;
        size_t gran = 0;
        cu_ok(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM), "granularity");
        brick_bytes_ = (brick_bytes + gran - 1) / gran * gran;
        total_ = brick_bytes_ * bricks_;
        cu_ok(cuMemAddressReserve(&base_, total_, 0, 0, 0), "reserve");
        cu_ok(cuMemCreate(&chunk_, total_, &prop, 0), "create");
        cu_ok(cuMemMap(base_, total_, 0, chunk_, 0), "map");
        CUmemAccessDesc acc{};
        acc.location = prop.location;
        acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
        cu_ok(cuMemSetAccess(base_, total_, &acc, 1), "access");
    }

    ~VolumeBrickPool() {
        cudaDeviceSynchronize();                                   // no ray march may still read the bricks
        cu_ok(cuMemAddressFree(base_, total_), "address free");    // EXPECT: vmm_lifecycle
        cu_ok(cuMemUnmap(base_, total_), "unmap");
        cu_ok(cuMemRelease(chunk_), "release");
    }

    VolumeBrickPool(const VolumeBrickPool&) = delete;
    VolumeBrickPool& operator=(const VolumeBrickPool&) = delete;

    uint8_t* brick(int i) const { return reinterpret_cast<uint8_t*>(base_ + brick_bytes_ * i); }
    size_t brick_bytes() const { return brick_bytes_; }
    int count() const { return bricks_; }

private:
    int bricks_;
    int device_;
    size_t brick_bytes_ = 0;
    size_t total_ = 0;
    CUdeviceptr base_ = 0;
    CUmemGenericAllocationHandle chunk_{};
};

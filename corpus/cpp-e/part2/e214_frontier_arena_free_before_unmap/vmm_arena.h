// VMM-backed arena for the BFS frontier queues: one reservation, one physical allocation.
#pragma once
#include <cuda.h>
#include <cstdio>
#include <cstdlib>

#define CU_TRY(x) do { CUresult r_ = (x); if (r_ != CUDA_SUCCESS) { \
    std::fprintf(stderr, "%s:%d %s = %d\n", __FILE__, __LINE__, #x, int(r_)); std::abort(); } } while (0)

class VmmArena {
public:
    VmmArena(size_t min_bytes, int device) {
        CUmemAllocationProp prop = {};
        prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
        prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        prop.location.id = device;
        size_t gran = 0;
        CU_TRY(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
        this->size = (min_bytes + gran - 1) / gran * gran;
        CU_TRY(cuMemAddressReserve(&this->base, this->size, 0, 0, 0));
        CU_TRY(cuMemCreate(&this->handle, this->size, &prop, 0));
        CU_TRY(cuMemMap(this->base, this->size, 0, this->handle, 0));
        CUmemAccessDesc acc = {};
        acc.location = prop.location;
        acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
        CU_TRY(cuMemSetAccess(this->base, this->size, &acc, 1));
    }

    ~VmmArena() { release(); }

    // give everything back; the caller has synchronized the stream that used the arena
    void release() {
        if (!base) return;
        cuMemRelease(handle);
        cuMemAddressFree(base, size); // EXPECT: vmm_lifecycle
        cuMemUnmap(base, size);
        base = 0;
    }

    template <typename T> T* at(size_t byte_offset) const {
        return reinterpret_cast<T*>(base + byte_offset);
    }
    size_t bytes() const { return size; }

private:
    CUmemGenericAllocationHandle handle = 0;
    CUdeviceptr base = 0;
    size_t size = 0;
};

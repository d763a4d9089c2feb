#pragma once
#include <cuda.h>
#include <cstdio>
#include <cstdlib>

#define CU_OK(call) do { CUresult r_ = (call); if (r_ != CUDA_SUCCESS) { const char* s_ = nullptr; \
    cuGetErrorString(r_, &s_); std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, s_); std::abort(); } } while (0)

// A fixed-size device pool backed by one VMM allocation.
class VmmPool {
public:
    VmmPool(int device, size_t bytes) {
        CUmemAllocationProp prop = {};
        prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
        prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        prop.location.id = device;
        size_t gran = 0;
        CU_OK(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED));
        size_ = (bytes + gran - 1) / gran * gran;
        CU_OK(cuMemAddressReserve(&va_, size_, gran, 0, 0));
        CU_OK(cuMemCreate(&handle_, size_, &prop, 0));
        CU_OK(cuMemMap(va_, size_, 0, handle_, 0));
        CUmemAccessDesc desc = {};
        desc.location = prop.location;
        desc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
        CU_OK(cuMemSetAccess(va_, size_, &desc, 1));
    }

    ~VmmPool() {
        // release everything we own
        cuMemRelease(handle_);
        cuMemAddressFree(va_, size_);
        cuMemUnmap(va_, size_);
    }

    template <typename T>
    T* carve(size_t count) {
        size_t bytes = (count * sizeof(T) + 255) & ~size_t(255);
        if (used_ + bytes > size_) return nullptr;
        T* p = reinterpret_cast<T*>(va_ + used_);
        used_ += bytes;
        return p;
    }

private:
    CUdeviceptr va_ = 0;
    size_t size_ = 0, used_ = 0;
    CUmemGenericAllocationHandle handle_ = 0;
};

#pragma once
#include <cuda.h>
#include <cstdio>
#include <stdexcept>
#include <string>

inline void drv_check(CUresult r, const char* what) {
    if (r != CUDA_SUCCESS) {
        const char* s = nullptr;
        cuGetErrorString(r, &s);
        throw std::runtime_error(std::string(what) + ": " + (s ? s : "?"));
    }
}
#define DRV_CALL(x) drv_check((x), #x)

// RAII owner of one VMM mapping: reserve, create, map, set access in the constructor.
class VmmRegion {
public:
    VmmRegion(int device, size_t bytes) {
        CUmemAllocationProp prop = {};
        prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
        prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        prop.location.id = device;
        size_t gran = 0;
        DRV_CALL(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
        size_ = (bytes + gran - 1) / gran * gran;
        DRV_CALL(cuMemAddressReserve(&va_, size_, 0, 0, 0));
        DRV_CALL(cuMemCreate(&handle_, size_, &prop, 0));
        DRV_CALL(cuMemMap(va_, size_, 0, handle_, 0));
        CUmemAccessDesc desc = {};
        desc.location = prop.location;
        desc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
        DRV_CALL(cuMemSetAccess(va_, size_, &desc, 1));
    }

    ~VmmRegion() {
        // teardown; return codes ignored in a destructor
        cuMemRelease(handle_);
        cuMemAddressFree(va_, size_);
        cuMemUnmap(va_, size_);
    }

    VmmRegion(const VmmRegion&) = delete;
    VmmRegion& operator=(const VmmRegion&) = delete;

    template <typename T> T* as() const { return reinterpret_cast<T*>(va_); }
    size_t bytes() const { return size_; }

private:
    CUdeviceptr va_ = 0;
    size_t size_ = 0;
    CUmemGenericAllocationHandle handle_ = 0;
};

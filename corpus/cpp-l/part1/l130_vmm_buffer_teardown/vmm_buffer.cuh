// RAII wrapper over one VMM-backed device buffer (driver API).
#pragma once
#include <cuda.h>
#include <cstdio>
#include <cstdlib>

#define VMM_CHECK(expr)                                                          \
    do {                                                                         \
        CUresult r_ = (expr);                                                    \
        if (r_ != CUDA_SUCCESS) {                                                \
            const char* n_ = nullptr;                                            \
            cuGetErrorName(r_, &n_);                                             \
            fprintf(stderr, "%s -> %s\n", #expr, n_);                            \
            std::abort();                                                        \
        }                                                                        \
    } while (0)

class VmmBuffer {
public:
    VmmBuffer(int device, size_t bytes) {
        CUmemAllocationProp prop = {};
        prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
        prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        prop.location.id = device;
        size_t gran = 0;
        VMM_CHECK(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
        size_ = (bytes + gran - 1) / gran * gran;
        VMM_CHECK(cuMemAddressReserve(&ptr_, size_, 0, 0, 0));
        VMM_CHECK(cuMemCreate(&handle_, size_, &prop, 0));
        VMM_CHECK(cuMemMap(ptr_, size_, 0, handle_, 0));
        CUmemAccessDesc access = {};
        access.location = prop.location;
        access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
        VMM_CHECK(cuMemSetAccess(ptr_, size_, &access, 1));
    }

    ~VmmBuffer() {
        // the physical memory stays alive while mapped, so release the handle first
        cuMemRelease(handle_);
        cuMemAddressFree(ptr_, size_); // EXPECT: vmm_lifecycle
        cuMemUnmap(ptr_, size_);
    }

    VmmBuffer(const VmmBuffer&) = delete;
    VmmBuffer& operator=(const VmmBuffer&) = delete;

    CUdeviceptr get() const { return ptr_; }
    size_t size() const { return size_; }

private:
    CUdeviceptr ptr_ = 0;
    size_t size_ = 0;
    CUmemGenericAllocationHandle handle_ = 0;
};

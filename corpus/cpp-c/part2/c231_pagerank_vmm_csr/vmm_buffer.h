#pragma once
#include <cuda.h>
#include <cstddef>
#include <cstdio>
#include <cstdlib>

#define CHECK_CU(x)                                                                       \
    do {                                                                                  \
        CUresult r_ = (x);                                                                \
        if (r_ != CUDA_SUCCESS) {                                                         \
            std::fprintf(stderr, "%s:%d: %s failed (%d)\n", __FILE__, __LINE__, #x, (int)r_); \
            std::exit(1);                                                                 \
        }                                                                                 \
    } while (0)

// Device buffer backed by the VMM API, so graph arrays can later be shared with
// peer GPUs by mapping the same handle there.
class VmmBuffer {
public:
    VmmBuffer(int device, size_t bytes) {
        CUmemAllocationProp prop = {};
        prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
        prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        prop.location.id = device;
        size_t gran = 0;
        CHECK_CU(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
        size_ = (bytes + gran - 1) / gran * gran;
        CHECK_CU(cuMemCreate(&handle_, size_, &prop, 0));
        CHECK_CU(cuMemAddressReserve(&ptr_, size_, 0, 0, 0));
        CHECK_CU(cuMemMap(ptr_, size_, 0, handle_, 0));
        CUmemAccessDesc desc = {};
        desc.location = prop.location;
        desc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
        CHECK_CU(cuMemSetAccess(ptr_, size_, &desc, 1));
    }

    ~VmmBuffer() {
        cuMemRelease(handle_);
        cuMemAddressFree(ptr_, size_); // EXPECT: vmm_lifecycle
    }

    VmmBuffer(const VmmBuffer&) = delete;
    VmmBuffer& operator=(const VmmBuffer&) = delete;

    template <typename T> T* as() const { return reinterpret_cast<T*>(ptr_); }
    CUdeviceptr ptr() const { return ptr_; }
    size_t size() const { return size_; }

private:
    CUmemGenericAllocationHandle handle_ = 0;
    CUdeviceptr ptr_ = 0;
    size_t size_ = 0;
};

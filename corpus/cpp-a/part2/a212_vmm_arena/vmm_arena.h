#pragma once
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define CU_CHECK(x)                                                            \
    do {                                                                       \
        CUresult r_ = (x);                                                     \
        if (r_ != CUDA_SUCCESS) {                                              \
            const char* msg_ = nullptr;                                        \
            cuGetErrorString(r_, &msg_);                                       \
            std::fprintf(stderr, "%s: %s\n", #x, msg_ ? msg_ : "?");           \
            std::abort();                                                      \
        }                                                                      \
    } while (0)

// One physical allocation mapped at a reserved range, device access granted in the constructor.
class VmmArena {
public:
    VmmArena(int device, size_t min_bytes, cudaStream_t stream) : device_(device), stream_(stream) {
        CUmemAllocationProp prop = {};
        prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
        prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        prop.location.id = device;
        size_t gran = 0;
        CU_CHECK(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED));
        size_ = ((min_bytes + gran - 1) / gran) * gran;

        CU_CHECK(cuMemAddressReserve(&base_, size_, gran, 0, 0));
        CU_CHECK(cuMemCreate(&handle_, size_, &prop, 0));
        CU_CHECK(cuMemMap(base_, size_, 0, handle_, 0));

        CUmemAccessDesc access = {};
        access.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        access.location.id = device;
        access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
        CU_CHECK(cuMemSetAccess(base_, size_, &access, 1));
    }

    ~VmmArena() {
        // kernels queued on our stream may still use the mapping: drain before unmapping
        cudaStreamSynchronize(stream_);
        cuMemUnmap(base_, size_);
        cuMemRelease(handle_);
        cuMemAddressFree(base_, size_);
    }

    VmmArena(const VmmArena&) = delete;
    VmmArena& operator=(const VmmArena&) = delete;

    template <typename T> T* as() const { return reinterpret_cast<T*>(base_); }
    size_t bytes() const { return size_; }

private:
    int device_;
    cudaStream_t stream_;
    size_t size_ = 0;
    CUdeviceptr base_ = 0;
    CUmemGenericAllocationHandle handle_ = 0;
};

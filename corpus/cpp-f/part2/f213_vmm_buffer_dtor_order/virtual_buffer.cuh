#pragma once
#include <cuda.h>
#include <cstdio>

#define VB_CHECK(x) do { CUresult r_ = (x); if (r_ != CUDA_SUCCESS) \
    fprintf(stderr, "virtual_buffer: %s returned %d\n", #x, int(r_)); } while (0)

// Device buffer backed by the VMM API so it can later be exported / remapped.
template <typename T>
class VirtualBuffer {
public:
    VirtualBuffer(size_t count, int device, CUstream stream) : count_(count), stream_(stream) {
        CUmemAllocationProp prop = {};
        prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
        prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        prop.location.id = device;
        size_t gran = 0;
        VB_CHECK(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
        bytes_ = ((count * sizeof(T) + gran - 1) / gran) * gran;
        VB_CHECK(cuMemAddressReserve(&va_, bytes_, 0, 0, 0));
        VB_CHECK(cuMemCreate(&handle_, bytes_, &prop, 0));
        VB_CHECK(cuMemMap(va_, bytes_, 0, handle_, 0));
        CUmemAccessDesc access = {};
        access.location = prop.location;
        access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
        VB_CHECK(cuMemSetAccess(va_, bytes_, &access, 1));
    }

    ~VirtualBuffer() {
        VB_CHECK(cuStreamSynchronize(stream_));
        VB_CHECK(cuMemRelease(handle_));
        VB_CHECK(cuMemAddressFree(va_, bytes_));   // the range is still mapped here
        VB_CHECK(cuMemUnmap(va_, bytes_));
    }

    VirtualBuffer(const VirtualBuffer&) = delete;
    VirtualBuffer& operator=(const VirtualBuffer&) = delete;

    T* get() const { return reinterpret_cast<T*>(va_); }
    CUdeviceptr dptr() const { return va_; }
    size_t size() const { return count_; }

private:
    size_t count_, bytes_ = 0;
    CUstream stream_;
    CUdeviceptr va_ = 0;
    CUmemGenericAllocationHandle handle_ = 0;
};

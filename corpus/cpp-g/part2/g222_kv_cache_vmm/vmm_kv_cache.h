#pragma once
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstddef>
#include <stdexcept>
#include <string>

#define KV_DRV(call)                                                                    \
    do {                                                                                \
        CUresult r_ = (call);                                                           \
        if (r_ != CUDA_SUCCESS) {                                                       \
            const char* name_ = nullptr;                                                \
            cuGetErrorName(r_, &name_);                                                 \
            throw std::runtime_error(std::string(#call) + " -> " + (name_ ? name_ : "?")); \
        }                                                                               \
    } while (0)

__global__ void zero_pages(float* kv, size_t n) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) kv[i] = 0.f;
}

// A fixed-size KV cache backed by one VMM allocation, so it can later be exported to a peer.
class VmmKvCache {
public:
    VmmKvCache(int device, size_t layers, size_t tokens, size_t head_dim, cudaStream_t stream)
        : elems_(layers * tokens * head_dim), stream_(stream) {
        prop_.type = CU_MEM_ALLOCATION_TYPE_PINNED;
        prop_.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        prop_.location.id = device;
        prop_.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
        size_t gran = 0;
        KV_DRV(cuMemGetAllocationGranularity(&gran, &prop_, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED));
        bytes_ = ((elems_ * sizeof(float) + gran - 1) / gran) * gran;

        KV_DRV(cuMemAddressReserve(&va_, bytes_, gran, 0, 0));
        KV_DRV(cuMemCreate(&handle_, bytes_, &prop_, 0));
        KV_DRV(cuMemMap(va_, bytes_, 0, handle_, 0));
        zero_fill();
        grant(device);
    }
    ~VmmKvCache() {
        cudaStreamSynchronize(stream_);
        cuMemUnmap(va_, bytes_);
        cuMemRelease(handle_);
        cuMemAddressFree(va_, bytes_);
    }
    VmmKvCache(const VmmKvCache&) = delete;
    VmmKvCache& operator=(const VmmKvCache&) = delete;

    void zero_fill() {
        zero_pages<<<(unsigned)((elems_ + 255) / 256), 256, 0, stream_>>>(data(), elems_);
    }
    void grant(int device) {
        CUmemAccessDesc desc = {};
        desc.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        desc.location.id = device;
        desc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
        KV_DRV(cuMemSetAccess(va_, bytes_, &desc, 1));
    }

    float* data() const { return reinterpret_cast<float*>(va_); }
    size_t elems() const { return elems_; }

private:
    size_t elems_;
    size_t bytes_ = 0;
    cudaStream_t stream_;
    CUmemAllocationProp prop_ = {};
    CUmemGenericAllocationHandle handle_ = 0;
    CUdeviceptr va_ = 0;
};

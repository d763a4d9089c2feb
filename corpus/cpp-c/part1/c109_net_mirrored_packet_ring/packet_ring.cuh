// Mirrored device ring for the NIC receive path: one physical allocation mapped twice,
// back to back, so a frame that wraps past the end can be read as one contiguous span.
#pragma once
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#define CU_CHECK(call)                                                          \
    do {                                                                        \
        CUresult r_ = (call);                                                   \
        if (r_ != CUDA_SUCCESS) {                                               \
            const char* msg_ = nullptr;                                         \
            cuGetErrorString(r_, &msg_);                                        \
            std::fprintf(stderr, "%s failed: %s\n", #call, msg_ ? msg_ : "?");  \
            std::exit(EXIT_FAILURE);                                            \
        }                                                                       \
    } while (0)

class MirroredRing {
public:
    explicit MirroredRing(size_t min_bytes, int device = 0) {
        prop_.type = CU_MEM_ALLOCATION_TYPE_PINNED;
        prop_.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        prop_.location.id = device;
        size_t gran = 0;
        CU_CHECK(cuMemGetAllocationGranularity(&gran, &prop_, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
        size_ = ((min_bytes + gran - 1) / gran) * gran;

        CU_CHECK(cuMemCreate(&handle_, size_, &prop_, 0));
        CU_CHECK(cuMemAddressReserve(&base_, 2 * size_, 0, 0, 0));
        CU_CHECK(cuMemMap(base_, size_, 0, handle_, 0));
        CU_CHECK(cuMemMap(base_ + size_, size_, 0, handle_, 0));

        CUmemAccessDesc access{};
        access.location = prop_.location;
        access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
        CU_CHECK(cuMemSetAccess(base_, 2 * size_, &access, 1));
    }

    // The owner synchronizes the streams that use the ring before it goes away.
    ~MirroredRing() {
        cuMemUnmap(base_, size_);
        cuMemUnmap(base_ + size_, size_);
        cuMemRelease(handle_);
        cuMemAddressFree(base_, 2 * size_);
    }

    MirroredRing(const MirroredRing&) = delete;
    MirroredRing& operator=(const MirroredRing&) = delete;

    uint8_t* data() const { return reinterpret_cast<uint8_t*>(base_); }
    const uint8_t* mirror() const { return reinterpret_cast<const uint8_t*>(base_ + size_); }
    size_t capacity() const { return size_; }

private:
    CUmemAllocationProp prop_{};
    CUmemGenericAllocationHandle handle_{};
    CUdeviceptr base_ = 0;
    size_t size_ = 0;
};

// Lands the wrapped tail of a frame at the start of the ring and extracts the whole frame in
// the same pass. The frame's head sits at the end of the ring (frame_off .. cap); its tail is
// written at ring[0 .. tail_len) and read back contiguously through the mirror view.
__global__ void land_tail_and_extract(uint8_t* ring, const uint8_t* mirror, const uint8_t* tail,
                                      int tail_len, size_t frame_off, int head_len, uint8_t* out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < head_len) out[i] = ring[frame_off + i];
    if (i < tail_len) {
        ring[i] = tail[i];               // primary mapping
        out[head_len + i] = mirror[i];   // same physical byte, through the second mapping
    }
}

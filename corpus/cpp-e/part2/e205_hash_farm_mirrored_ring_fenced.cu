// case: a cryptographic hash farm keeps its message queue in a VMM mirrored ring (one allocation mapped at base and base+size, access granted on both); the kernel writes the wrapped tail through the first view and executes fence.proxy.alias before reading it through the mirror: correct.
// expect: none
#include <cuda.h>
#include <cstdint>
#include <cstdio>

#define CU_CHECK(x) do { CUresult r_ = (x); if (r_ != CUDA_SUCCESS) { const char* m_ = nullptr; \
    cuGetErrorString(r_, &m_); std::fprintf(stderr, "%s -> %s\n", #x, m_); return 1; } } while (0)

// Each thread seals one 4-byte word of the block that wraps around the end of the ring:
// the header goes in through the low view, the hash reads the contiguous copy in the high view.
__global__ void seal_and_hash(uint32_t* ring, uint32_t* mirror_view, uint32_t* digests, uint32_t seq) {
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    ring[i] = seq ^ (i * 0x9e3779b9u);
    asm volatile("fence.proxy.alias;" ::: "memory");
    uint32_t w = mirror_view[i];
    uint32_t h = w * 0x85ebca6bu;
    h ^= h >> 13;
    digests[i] = h * 0xc2b2ae35u;
}

int main() {
    CU_CHECK(cuInit(0));
    CUdevice dev;
    CU_CHECK(cuDeviceGet(&dev, 0));
    CUcontext ctx;
    CU_CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CU_CHECK(cuCtxSetCurrent(ctx));
    CUstream stream;
    CU_CHECK(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));

    CUmemAllocationProp prop = {};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = 0;
    size_t gran = 0;
    CU_CHECK(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    const size_t ring_bytes = gran;

    CUmemGenericAllocationHandle handle;
    CU_CHECK(cuMemCreate(&handle, ring_bytes, &prop, 0));
    CUdeviceptr base = 0;
    CU_CHECK(cuMemAddressReserve(&base, 2 * ring_bytes, 0, 0, 0));
    CU_CHECK(cuMemMap(base, ring_bytes, 0, handle, 0));
    CU_CHECK(cuMemMap(base + ring_bytes, ring_bytes, 0, handle, 0));
    CUmemAccessDesc access = {};
    access.location = prop.location;
    access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    CU_CHECK(cuMemSetAccess(base, 2 * ring_bytes, &access, 1));

    const uint32_t words = 1024;
    CUdeviceptr digests = 0;
    CU_CHECK(cuMemAlloc(&digests, words * sizeof(uint32_t)));
    uint32_t* low = reinterpret_cast<uint32_t*>(base);
    uint32_t* high = reinterpret_cast<uint32_t*>(base + ring_bytes);

    for (uint32_t seq = 0; seq < 8; ++seq)
        seal_and_hash<<<words / 256, 256, 0, stream>>>(low, high, reinterpret_cast<uint32_t*>(digests), seq);

    uint32_t first[4] = {};
    CU_CHECK(cuMemcpyDtoHAsync(first, digests, sizeof(first), stream));
    CU_CHECK(cuStreamSynchronize(stream));
    std::printf("digest[0..3] = %08x %08x %08x %08x\n", first[0], first[1], first[2], first[3]);

    CU_CHECK(cuMemFree(digests));
    CU_CHECK(cuMemUnmap(base, ring_bytes));
    CU_CHECK(cuMemUnmap(base + ring_bytes, ring_bytes));
    CU_CHECK(cuMemRelease(handle));
    CU_CHECK(cuMemAddressFree(base, 2 * ring_bytes));
    CU_CHECK(cuStreamDestroy(stream));
    CU_CHECK(cuDevicePrimaryCtxRelease(dev));
    return 0;
}

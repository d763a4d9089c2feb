// case: a paged KV cache reserves VA for its blocks and maps block 0 with access granted; when the sequence is reset it swaps block 0's physical page for a fresh one (unmap, release, create, map at the same address) but forgets cuMemSetAccess for the new mapping, so the clearing memset touches a mapping with no access.
// expect: vmm_lifecycle=1
#include <cuda.h>
#include <cstdio>
#include <cstdlib>

#define CU_CHECK(expr)                                                           \
    do {                                                                         \
        CUresult r_ = (expr);                                                    \
        if (r_ != CUDA_SUCCESS) {                                                \
            const char* n_ = nullptr;                                            \
            cuGetErrorName(r_, &n_);                                             \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, n_);              \
            std::exit(1);                                                        \
        }                                                                        \
    } while (0)

struct KvBlockTable {
    CUdeviceptr base = 0;
    size_t block_bytes = 0;
    int max_blocks = 0;
    CUmemAllocationProp prop{};
    CUmemAccessDesc access{};
};

static CUmemGenericAllocationHandle map_block0(KvBlockTable& t) {
    CUmemGenericAllocationHandle h;
    CU_CHECK(cuMemCreate(&h, t.block_bytes, &t.prop, 0));
    CU_CHECK(cuMemMap(t.base, t.block_bytes, 0, h, 0));
    return h;
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

    KvBlockTable t;
    t.prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    t.prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    t.prop.location.id = dev;
    t.access.location = t.prop.location;
    t.access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    CU_CHECK(cuMemGetAllocationGranularity(&t.block_bytes, &t.prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED));
    t.max_blocks = 64;
    CU_CHECK(cuMemAddressReserve(&t.base, t.block_bytes * t.max_blocks, 0, 0, 0));

    // first sequence: block 0 mapped and made accessible
    CUmemGenericAllocationHandle block0 = map_block0(t);
    CU_CHECK(cuMemSetAccess(t.base, t.block_bytes, &t.access, 1));
    CU_CHECK(cuMemsetD32Async(t.base, 0x3f800000u, t.block_bytes / 4, stream));  // 1.0f fill
    CU_CHECK(cuStreamSynchronize(stream));

    // sequence reset: drop the old page and start from a fresh one at the same address
    CU_CHECK(cuMemUnmap(t.base, t.block_bytes));
    CU_CHECK(cuMemRelease(block0));
    block0 = map_block0(t);
    CU_CHECK(cuMemsetD32Async(t.base, 0, t.block_bytes / 4, stream)); // EXPECT: vmm_lifecycle
    CU_CHECK(cuStreamSynchronize(stream));

    printf("sequence reset, block 0 cleared (%zu KiB)\n", t.block_bytes >> 10);

    CU_CHECK(cuMemUnmap(t.base, t.block_bytes));
    CU_CHECK(cuMemRelease(block0));
    CU_CHECK(cuMemAddressFree(t.base, t.block_bytes * t.max_blocks));
    CU_CHECK(cuStreamDestroy(stream));
    CU_CHECK(cuDevicePrimaryCtxRelease(dev));
    return 0;
}

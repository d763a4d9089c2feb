// case: a GPU hash join maps one physical hash-table allocation at two reserved ranges (a writable view and a read-only "shadow" view) and a single probe kernel marks matches through one and reads slot states through the other with no fence.proxy.alias.
// expect: unfenced_vmm_alias=1
#include <cuda.h>
#include <cstdint>
#include <cstdio>

#define CU_CHECK(x) do { CUresult r_ = (x); if (r_ != CUDA_SUCCESS) { \
    std::fprintf(stderr, "%s failed: %d\n", #x, int(r_)); return false; } } while (0)

__global__ void probe_mark(uint32_t* table_rw, const uint32_t* table_shadow, const uint32_t* probe,
                           uint32_t n, uint32_t mask, uint32_t* matched) {
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    uint32_t slot = (probe[i] * 2654435761u) & mask;
    table_rw[slot] |= 0x80000000u;                       // mark the build row as matched
    matched[i] = (table_shadow[slot] & 0x7fffffffu) == probe[i];   // stale through the second view
}

struct AliasedTable {
    CUmemGenericAllocationHandle handle = 0;
    CUdeviceptr rw = 0, shadow = 0;
    size_t bytes = 0;

    bool create(size_t want) {
        CUmemAllocationProp prop = {};
        prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
        prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        prop.location.id = 0;
        size_t gran = 0;
        CU_CHECK(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
        bytes = (want + gran - 1) / gran * gran;
        CU_CHECK(cuMemCreate(&handle, bytes, &prop, 0));
        CU_CHECK(cuMemAddressReserve(&rw, bytes, 0, 0, 0));
        CU_CHECK(cuMemAddressReserve(&shadow, bytes, 0, 0, 0));
        CU_CHECK(cuMemMap(rw, bytes, 0, handle, 0));
        CU_CHECK(cuMemMap(shadow, bytes, 0, handle, 0));
        CUmemAccessDesc acc = {};
        acc.location = prop.location;
        acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
        CU_CHECK(cuMemSetAccess(rw, bytes, &acc, 1));
        CU_CHECK(cuMemSetAccess(shadow, bytes, &acc, 1));
        return true;
    }
    void destroy() {
        cuMemUnmap(shadow, bytes);
        cuMemUnmap(rw, bytes);
        cuMemRelease(handle);
        cuMemAddressFree(shadow, bytes);
        cuMemAddressFree(rw, bytes);
    }
};

static bool probe_phase(CUstream stream) {
    const uint32_t slots = 1u << 20, n = 1u << 20;
    AliasedTable t;
    if (!t.create(slots * sizeof(uint32_t))) return false;
    CUdeviceptr probe = 0, matched = 0;
    CU_CHECK(cuMemAlloc(&probe, n * sizeof(uint32_t)));
    CU_CHECK(cuMemAlloc(&matched, n * sizeof(uint32_t)));
    CU_CHECK(cuMemsetD32Async(t.rw, 0, slots, stream));
    CU_CHECK(cuMemsetD32Async(probe, 7, n, stream));
    probe_mark<<<n / 256, 256, 0, stream>>>(reinterpret_cast<uint32_t*>(t.rw), // EXPECT: unfenced_vmm_alias
                                            reinterpret_cast<const uint32_t*>(t.shadow),
                                            reinterpret_cast<const uint32_t*>(probe), n, slots - 1,
                                            reinterpret_cast<uint32_t*>(matched));
    uint32_t first = 0;
    CU_CHECK(cuMemcpyDtoHAsync(&first, matched, sizeof(first), stream));
    CU_CHECK(cuStreamSynchronize(stream));
    std::printf("probe[0] matched=%u\n", first);
    cuMemFree(matched);
    cuMemFree(probe);
    t.destroy();
    return true;
}

int main() {
    if (cuInit(0) != CUDA_SUCCESS) return 1;
    CUdevice dev;
    CUcontext ctx;
    cuDeviceGet(&dev, 0);
    cuDevicePrimaryCtxRetain(&ctx, dev);
    cuCtxSetCurrent(ctx);
    CUstream stream;
    cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING);
    bool ok = probe_phase(stream);
    cuStreamDestroy(stream);
    cuDevicePrimaryCtxRelease(dev);
    return ok ? 0 : 1;
}

// case: VMM-backed KV-cache block table: a debug check reads the first slot of the mapped range on the host, and teardown frees the reserved range with cuMemAddressFree before unmapping it
// expect: vmm_lifecycle=1, host_deref_device_ptr=1
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstdint>

#define CU_CHECK(x)                                                            \
    do {                                                                       \
        CUresult r_ = (x);                                                     \
        if (r_ != CUDA_SUCCESS) {                                              \
            const char* m_ = nullptr;                                          \
            cuGetErrorString(r_, &m_);                                         \
            std::fprintf(stderr, "%s failed: %s\n", #x, m_);                   \
            std::exit(1);                                                      \
        }                                                                      \
    } while (0)

using half_t = unsigned short;

__global__ void write_kv(half_t* kv, int layer, int tokens, int head_dim) {
    int t = blockIdx.x, d = threadIdx.x;
    if (t < tokens && d < head_dim) kv[(size_t)t * head_dim + d] = (half_t)(layer * 31 + t + d);
}

int main() {
    CU_CHECK(cuInit(0));
    CUdevice dev;
    CU_CHECK(cuDeviceGet(&dev, 0));
    CUcontext ctx;
    CU_CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CU_CHECK(cuCtxSetCurrent(ctx));

    CUmemAllocationProp prop = {};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = 0;
    size_t gran = 0;
    CU_CHECK(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));

    const int tokens = 4096, head_dim = 128;
    size_t bytes = (size_t)tokens * head_dim * sizeof(half_t);
    bytes = ((bytes + gran - 1) / gran) * gran;

    CUdeviceptr kv_base = 0;
    CUmemGenericAllocationHandle kv_handle;
    CU_CHECK(cuMemAddressReserve(&kv_base, bytes, 0, 0, 0));
    CU_CHECK(cuMemCreate(&kv_handle, bytes, &prop, 0));
    CU_CHECK(cuMemMap(kv_base, bytes, 0, kv_handle, 0));
    CUmemAccessDesc acc = {};
    acc.location = prop.location;
    acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    CU_CHECK(cuMemSetAccess(kv_base, bytes, &acc, 1));

    half_t* kv = reinterpret_cast<half_t*>(kv_base);
    write_kv<<<tokens, head_dim>>>(kv, 3, tokens, head_dim);
    cudaDeviceSynchronize();

#ifndef NDEBUG_KV
    // sanity check of the first slot
    if (kv[0] != (half_t)(3 * 31)) { // EXPECT: host_deref_device_ptr
        std::fprintf(stderr, "kv cache corrupt\n");
    }
#endif

    // teardown
    CU_CHECK(cuMemRelease(kv_handle));
    cuMemAddressFree(kv_base, bytes); // EXPECT: vmm_lifecycle
    cuMemUnmap(kv_base, bytes);
    CU_CHECK(cuDevicePrimaryCtxRelease(dev));
    return 0;
}

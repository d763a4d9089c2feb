// case: A growable VMM arena reserves a large range, maps two separate physical chunks back to back, grants access to each mapping before any memset, copy or kernel touches it, waits for the device, then unmaps, releases and frees the range in that order; every chunk has a single mapping, so there is no alias; correct.
// expect: none
#include <cuda.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CU_CHECK(call)                                                             \
    do {                                                                           \
        CUresult r_ = (call);                                                      \
        if (r_ != CUDA_SUCCESS) {                                                  \
            const char* s_ = nullptr;                                              \
            cuGetErrorString(r_, &s_);                                             \
            std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, s_ ? s_ : "?"); \
            std::exit(EXIT_FAILURE);                                               \
        }                                                                          \
    } while (0)

__global__ void iota_scale(float* data, size_t n, float s) {
    size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    if (i < n) data[i] = data[i] + s * float(i);
}

int main() {
    CU_CHECK(cuInit(0));
    CUdevice dev;
    CUcontext ctx;
    CU_CHECK(cuDeviceGet(&dev, 0));
    CU_CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CU_CHECK(cuCtxSetCurrent(ctx));

    CUmemAllocationProp prop{};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = 0;
    size_t gran = 0;
    CU_CHECK(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED));
    const size_t chunk = 16 * gran;
    const size_t reserve = 64 * gran;

    CUdeviceptr base = 0;
    CU_CHECK(cuMemAddressReserve(&base, reserve, 0, 0, 0));

    CUmemAccessDesc access{};
    access.location = prop.location;
    access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;

    // First chunk.
    CUmemGenericAllocationHandle h0 = 0, h1 = 0;
    CU_CHECK(cuMemCreate(&h0, chunk, &prop, 0));
    CU_CHECK(cuMemMap(base, chunk, 0, h0, 0));
    CU_CHECK(cuMemSetAccess(base, chunk, &access, 1));
    CU_CHECK(cuMemsetD32(base, 0, chunk / sizeof(float)));

    // The arena grows: a second chunk right after the first, same virtual range.
    CU_CHECK(cuMemCreate(&h1, chunk, &prop, 0));
    CU_CHECK(cuMemMap(base + chunk, chunk, 0, h1, 0));
    CU_CHECK(cuMemSetAccess(base + chunk, chunk, &access, 1));
    CU_CHECK(cuMemsetD32(base + chunk, 0, chunk / sizeof(float)));

    const size_t n = 2 * chunk / sizeof(float);
    float* arena = reinterpret_cast<float*>(base);
    iota_scale<<<unsigned((n + 255) / 256), 256>>>(arena, n, 0.5f);
    CU_CHECK(cuCtxSynchronize());

    std::vector<float> tail(1024);
    CU_CHECK(cuMemcpyDtoH(tail.data(), base + 2 * chunk - tail.size() * sizeof(float), tail.size() * sizeof(float)));
    std::printf("arena of %zu MiB, last element %.1f\n", (2 * chunk) >> 20, tail.back());

    CU_CHECK(cuMemUnmap(base + chunk, chunk));
    CU_CHECK(cuMemUnmap(base, chunk));
    CU_CHECK(cuMemRelease(h1));
    CU_CHECK(cuMemRelease(h0));
    CU_CHECK(cuMemAddressFree(base, reserve));
    CU_CHECK(cuDevicePrimaryCtxRelease(dev));
    return 0;
}

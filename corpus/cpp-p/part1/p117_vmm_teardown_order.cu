// case: a VMM-backed KV cache is set up correctly, but its release function frees the reserved address range with cuMemAddressFree before unmapping it (inverted release order, as Mooncake #2380); the handle release before the unmap is legal.
// expect: vmm_lifecycle=1
#include <cstdio>
#include <cstdlib>
#include <cuda.h>
#include <cuda_runtime.h>

#define CU_CHECK(x) do { CUresult r_ = (x); if (r_ != CUDA_SUCCESS) { const char* s_ = nullptr; \
    cuGetErrorString(r_, &s_); fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, s_ ? s_ : "?"); exit(1); } } while (0)

__global__ void init_cache(float* kv, size_t n) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) kv[i] = 0.0f;
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
    CU_CHECK(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED));
    size_t size = ((256u << 20) + gran - 1) / gran * gran;

    CUdeviceptr kv;
    CUmemGenericAllocationHandle handle;
    CU_CHECK(cuMemAddressReserve(&kv, size, 0, 0, 0));
    CU_CHECK(cuMemCreate(&handle, size, &prop, 0));
    CU_CHECK(cuMemMap(kv, size, 0, handle, 0));
    CUmemAccessDesc access = {};
    access.location = prop.location;
    access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    CU_CHECK(cuMemSetAccess(kv, size, &access, 1));

    size_t n = size / sizeof(float);
    init_cache<<<(unsigned)((n + 255) / 256), 256, 0, (cudaStream_t)stream>>>((float*)kv, n);
    float probe = -1.0f;
    CU_CHECK(cuMemcpyDtoHAsync(&probe, kv + 4096, sizeof(float), stream));
    CU_CHECK(cuStreamSynchronize(stream));
    printf("probe %f\n", probe);

    // release: wrong order, the range is still mapped when it is freed
    cuMemRelease(handle);
    cuMemAddressFree(kv, size);  // EXPECT: vmm_lifecycle
    cuMemUnmap(kv, size);

    CU_CHECK(cuStreamDestroy(stream));
    CU_CHECK(cuDevicePrimaryCtxRelease(dev));
    return 0;
}

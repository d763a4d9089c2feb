// case: a VMM buffer is reserved, created and mapped (helpers in vmm_util.h), then cleared with cuMemsetD32Async before cuMemSetAccess grants the device access to the new mapping; the rest (kernel, readback, unmap/release/free order) is right.
// expect: vmm_lifecycle=1
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>
#include "vmm_util.h"

__global__ void iota(unsigned int* v, size_t n) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) v[i] += (unsigned int)i;
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

    CUmemAllocationProp prop = pinned_device_prop(0);
    size_t size = round_to_granularity(prop, 64u << 20);
    CUdeviceptr va;
    CU_CHECK(cuMemAddressReserve(&va, size, 0, 0, 0));
    CUmemGenericAllocationHandle handle;
    CU_CHECK(cuMemCreate(&handle, size, &prop, 0));
    CU_CHECK(cuMemMap(va, size, 0, handle, 0));

    // BUG: the mapping has no access yet
    CU_CHECK(cuMemsetD32Async(va, 0, size / 4, stream));  // EXPECT: vmm_lifecycle
    CUmemAccessDesc access = rw_access(0);
    CU_CHECK(cuMemSetAccess(va, size, &access, 1));

    size_t n = size / sizeof(unsigned int);
    iota<<<(unsigned)((n + 255) / 256), 256, 0, (cudaStream_t)stream>>>((unsigned int*)va, n);
    std::vector<unsigned int> host(1024);
    CU_CHECK(cuMemcpyDtoHAsync(host.data(), va, host.size() * sizeof(unsigned int), stream));
    CU_CHECK(cuStreamSynchronize(stream));
    printf("v[1000] = %u\n", host[1000]);

    CU_CHECK(cuMemUnmap(va, size));
    CU_CHECK(cuMemRelease(handle));
    CU_CHECK(cuMemAddressFree(va, size));
    CU_CHECK(cuStreamDestroy(stream));
    CU_CHECK(cuDevicePrimaryCtxRelease(dev));
    return 0;
}

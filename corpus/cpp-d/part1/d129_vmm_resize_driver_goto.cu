// case: C-style driver-API buffer resize with goto cleanup: it waits for the stream before cuMemUnmap, grants access again with cuMemSetAccess after mapping the larger allocation at the same address, and the cleanup unmaps (when mapped) before releasing and freeing the range: correct.
// expect: none
#include <cuda.h>
#include <stdio.h>
#include <stdint.h>

#define CK(call)                                                                  \
    do {                                                                          \
        rc = (call);                                                              \
        if (rc != CUDA_SUCCESS) {                                                 \
            fprintf(stderr, "%s failed (%d)\n", #call, (int)rc);                  \
            goto cleanup;                                                         \
        }                                                                         \
    } while (0)

int main(void)
{
    CUresult rc = CUDA_SUCCESS;
    CUdevice dev;
    CUcontext ctx = NULL;
    CUstream s = NULL;
    CUmemAllocationProp prop;
    CUmemAccessDesc acc;
    CUmemGenericAllocationHandle h = 0;
    CUdeviceptr va = 0;
    size_t gran = 0, reserved = 0, cur = 0, bigger = 0;
    int mapped = 0;
    uint32_t* probe = NULL; /* cuMemAllocHost */

    CK(cuInit(0));
    CK(cuDeviceGet(&dev, 0));
    CK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CK(cuCtxSetCurrent(ctx));
    CK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    CK(cuMemAllocHost((void**)&probe, 4096));

    prop = CUmemAllocationProp{};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = 0;
    acc = CUmemAccessDesc{};
    acc.location = prop.location;
    acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    CK(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    cur = 4 * gran;
    bigger = 16 * gran;
    reserved = 64 * gran;
    CK(cuMemAddressReserve(&va, reserved, 0, 0, 0));

    /* first size */
    CK(cuMemCreate(&h, cur, &prop, 0));
    CK(cuMemMap(va, cur, 0, h, 0));
    mapped = 1;
    CK(cuMemSetAccess(va, cur, &acc, 1));
    CK(cuMemsetD32Async(va, 1u, cur / 4, s));

    /* resize: wait for the work that uses the old mapping, then remap and grant access again */
    CK(cuStreamSynchronize(s));
    CK(cuMemUnmap(va, cur));
    mapped = 0;
    CK(cuMemRelease(h));
    h = 0;
    CK(cuMemCreate(&h, bigger, &prop, 0));
    CK(cuMemMap(va, bigger, 0, h, 0));
    mapped = 1;
    cur = bigger;
    CK(cuMemSetAccess(va, cur, &acc, 1));
    CK(cuMemsetD32Async(va, 7u, cur / 4, s));
    CK(cuMemcpyDtoHAsync(probe, va + cur - 4096, 4096, s));
    CK(cuStreamSynchronize(s));
    printf("resized to %zu bytes, last word %u\n", cur, probe[1023]);

cleanup:
    if (s) cuStreamSynchronize(s);
    if (mapped) cuMemUnmap(va, cur);
    if (h) cuMemRelease(h);
    if (va) cuMemAddressFree(va, reserved);
    if (probe) cuMemFreeHost(probe);
    if (s) cuStreamDestroy(s);
    if (ctx) cuDevicePrimaryCtxRelease(dev);
    return rc == CUDA_SUCCESS ? 0 : 1;
}

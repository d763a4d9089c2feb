// case: An in-place "shift" kernel is given two VMM views (separate reservations mapped to one cuMemCreate allocation) and writes through one while reading neighbours through the other, with no fence.proxy.alias in the kernel.
// expect: unfenced_vmm_alias=1
#include <cuda.h>
#include <cuda_runtime.h>
#include <stdio.h>

#define CU_SAFE(call) do { CUresult rc = (call); if (rc != CUDA_SUCCESS) { \
    const char *m; cuGetErrorName(rc, &m); fprintf(stderr, "%s -> %s\n", #call, m); return 1; } } while (0)

__global__ void shift_left(int *dst_view, const int *src_view, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        dst_view[i] = i;
    __syncthreads();
    if (i + 1 < n && (threadIdx.x + 1) < blockDim.x)
        dst_view[i] += src_view[i + 1];
}

int main(void)
{
    CUdevice dev;
    CUcontext ctx;
    CU_SAFE(cuInit(0));
    CU_SAFE(cuDeviceGet(&dev, 0));
    CU_SAFE(cuCtxCreate(&ctx, 0, dev));

    CUmemAllocationProp prop = {};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = 0;
    size_t gran = 0;
    CU_SAFE(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    size_t bytes = 4 * gran;

    CUmemGenericAllocationHandle phys;
    CU_SAFE(cuMemCreate(&phys, bytes, &prop, 0));

    CUdeviceptr view_w, view_r;
    CU_SAFE(cuMemAddressReserve(&view_w, bytes, 0, 0, 0));
    CU_SAFE(cuMemAddressReserve(&view_r, bytes, 0, 0, 0));
    CU_SAFE(cuMemMap(view_w, bytes, 0, phys, 0));
    CU_SAFE(cuMemMap(view_r, bytes, 0, phys, 0));

    CUmemAccessDesc desc = {};
    desc.location = prop.location;
    desc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    CU_SAFE(cuMemSetAccess(view_w, bytes, &desc, 1));
    CU_SAFE(cuMemSetAccess(view_r, bytes, &desc, 1));

    int n = (int)(bytes / sizeof(int));
    CU_SAFE(cuMemsetD32(view_w, 0, n));
    shift_left<<<n / 256, 256>>>((int *)view_w, (const int *)view_r, n);
    CU_SAFE(cuCtxSynchronize());

    int probe[4];
    CU_SAFE(cuMemcpyDtoH(probe, view_w, sizeof(probe)));
    printf("probe: %d %d %d %d (expect 1 3 5 7)\n", probe[0], probe[1], probe[2], probe[3]);

    CU_SAFE(cuMemUnmap(view_r, bytes));
    CU_SAFE(cuMemUnmap(view_w, bytes));
    CU_SAFE(cuMemRelease(phys));
    CU_SAFE(cuMemAddressFree(view_r, bytes));
    CU_SAFE(cuMemAddressFree(view_w, bytes));
    CU_SAFE(cuCtxDestroy(ctx));
    return 0;
}

// vmm_lifecycle, the fix: the calls in the documented order (CUDA Programming Guide, "Virtual
// Memory Management"): reserve, create, map, cuMemSetAccess, use; then wait for the device,
// unmap, release, free the range.
//
// The same three steps as vmm_lifecycle_bug.cu, each done right: every call returns
// CUDA_SUCCESS, and what the memset and the kernel wrote reads back.
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define CHECK(call) check((call), #call, __LINE__)
static void check(CUresult r, const char* call, int line) {
    if (r == CUDA_SUCCESS) return;
    const char* name;
    cuGetErrorName(r, &name);
    fprintf(stderr, "line %d: %s: %s\n", line, call, name);
    exit(1);
}

// Prints what a call returned, by CUDA's name for it.
static CUresult report(const char* call, CUresult r) {
    const char* name;
    cuGetErrorName(r, &name);
    printf("  %-36s -> %s\n", call, name);
    return r;
}

__global__ void fill(unsigned* out, unsigned v, size_t n) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) out[i] = v;
}

// Reserves a range of `size` bytes, maps a new physical allocation there and grants this device
// read-write access to it.
static CUdeviceptr map_new(size_t size, const CUmemAllocationProp* prop) {
    CUmemGenericAllocationHandle handle;
    CHECK(cuMemCreate(&handle, size, prop, 0));
    CUdeviceptr va;
    CHECK(cuMemAddressReserve(&va, size, 0, 0, 0));
    CHECK(cuMemMap(va, size, 0, handle, 0));
    CHECK(cuMemRelease(handle)); // the mapping keeps the memory alive
    CUmemAccessDesc access = {};
    access.location = prop->location;
    access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    CHECK(cuMemSetAccess(va, size, &access, 1));
    return va;
}

int main() {
    CHECK(cuInit(0));
    CUdevice dev;
    CHECK(cuDeviceGet(&dev, 0));
    CUcontext ctx;
    CHECK(cuDevicePrimaryCtxRetain(&ctx, dev)); // the context the runtime API uses too
    CHECK(cuCtxSetCurrent(ctx));
    CUmemAllocationProp prop = {};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = 0;
    size_t size;
    CHECK(cuMemGetAllocationGranularity(&size, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    const size_t n = size / sizeof(unsigned);
    unsigned first[4];
    int failures = 0;

    printf("vmm_lifecycle_fixed 1: unmap, then free the range\n");
    CUdeviceptr va = map_new(size, &prop);
    report("cuMemUnmap", cuMemUnmap(va, size));
    failures += report("cuMemAddressFree", cuMemAddressFree(va, size)) != CUDA_SUCCESS;

    printf("vmm_lifecycle_fixed 2: a memset of a mapping after cuMemSetAccess\n");
    CUdeviceptr fresh = map_new(size, &prop);
    failures += report("cuMemsetD32Async", cuMemsetD32Async(fresh, 7, n, 0)) != CUDA_SUCCESS;
    failures += report("cuCtxSynchronize", cuCtxSynchronize()) != CUDA_SUCCESS;
    CHECK(cuMemcpyDtoH(first, fresh, sizeof(first)));
    printf("  first values: %u %u %u %u\n", first[0], first[1], first[2], first[3]);
    failures += first[0] != 7 || first[3] != 7;
    CHECK(cuMemUnmap(fresh, size));
    CHECK(cuMemAddressFree(fresh, size));

    printf("vmm_lifecycle_fixed 3: a kernel writing a mapping after cuMemSetAccess\n");
    CUdeviceptr target = map_new(size, &prop);
    fill<<<(n + 255) / 256, 256>>>((unsigned*)target, 7, n);
    printf("  %-36s -> %s\n", "fill<<<...>>>", cudaGetErrorName(cudaGetLastError()));
    cudaError_t done = cudaDeviceSynchronize();
    printf("  %-36s -> %s\n", "cudaDeviceSynchronize", cudaGetErrorName(done));
    failures += done != cudaSuccess;
    CHECK(cuMemcpyDtoH(first, target, sizeof(first)));
    printf("  first values: %u %u %u %u\n", first[0], first[1], first[2], first[3]);
    failures += first[0] != 7 || first[3] != 7;
    CHECK(cuMemUnmap(target, size));
    CHECK(cuMemAddressFree(target, size));

    if (failures == 0)
        printf("vmm_lifecycle_fixed: every call succeeded and the values read back\n");
    else
        printf("vmm_lifecycle_fixed: FAILED (%d checks): see the calls above\n", failures);
    CHECK(cuDevicePrimaryCtxRelease(dev));
    return 0;
}

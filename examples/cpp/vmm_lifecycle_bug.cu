// vmm_lifecycle, the bug: VMM calls out of order (CUDA Programming Guide, "Virtual Memory
// Management": reserve, create, map, set access, use; then unmap, release, free the range).
//
// 1. cuMemAddressFree of a range that is still mapped: the driver refuses, the range stays.
// 2. cuMemsetD32Async of a fresh mapping before cuMemSetAccess: refused at the call.
// 3. a kernel writing a fresh mapping before cuMemSetAccess: it faults, the context is lost
//    (last, for that reason).
// The program prints what each call returned. On an H100 (driver 580): CUDA_ERROR_INVALID_VALUE,
// CUDA_ERROR_INVALID_VALUE, and CUDA_ERROR_ILLEGAL_ADDRESS at the synchronization.
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

// Reserves a range of `size` bytes and maps a new physical allocation there.
static CUdeviceptr map_new(size_t size, const CUmemAllocationProp* prop) {
    CUmemGenericAllocationHandle handle;
    CHECK(cuMemCreate(&handle, size, prop, 0));
    CUdeviceptr va;
    CHECK(cuMemAddressReserve(&va, size, 0, 0, 0));
    CHECK(cuMemMap(va, size, 0, handle, 0));
    CHECK(cuMemRelease(handle)); // the mapping keeps the memory alive
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

    printf("vmm_lifecycle_bug 1: cuMemAddressFree of a range that is still mapped\n");
    CUdeviceptr va = map_new(size, &prop);
    report("cuMemAddressFree (still mapped)", cuMemAddressFree(va, size));
    report("cuMemUnmap", cuMemUnmap(va, size));
    report("cuMemAddressFree (after cuMemUnmap)", cuMemAddressFree(va, size));

    printf("vmm_lifecycle_bug 2: a memset of a mapping before cuMemSetAccess\n");
    CUdeviceptr fresh = map_new(size, &prop);
    report("cuMemsetD32Async (no access)", cuMemsetD32Async(fresh, 7, n, 0));
    report("cuCtxSynchronize", cuCtxSynchronize());
    CHECK(cuMemUnmap(fresh, size));
    CHECK(cuMemAddressFree(fresh, size));

    printf("vmm_lifecycle_bug 3: a kernel writing a mapping before cuMemSetAccess\n");
    CUdeviceptr target = map_new(size, &prop);
    fill<<<(n + 255) / 256, 256>>>((unsigned*)target, 7, n);
    printf("  %-36s -> %s\n", "fill<<<...>>> (no access)", cudaGetErrorName(cudaGetLastError()));
    printf("  %-36s -> %s\n", "cudaDeviceSynchronize", cudaGetErrorName(cudaDeviceSynchronize()));
    printf("vmm_lifecycle_bug: done (after a fault the context is lost: nothing more can run)\n");
    return 0;
}

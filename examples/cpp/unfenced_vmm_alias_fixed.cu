// unfenced_vmm_alias, the fix: the kernel executes fence.proxy.alias between the write through
// one VMM mapping and the read through the other mapping of the same physical allocation.
//
// Same setup as unfenced_vmm_alias_bug.cu (one 2 MiB allocation mapped at A and B, each thread
// writes A[i] = i + 1, then reads B[i], 200 launches): with the fence no read is stale.
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

// CHECK(call) for both APIs: exits with the error's name when a driver or runtime call fails.
static void check(CUresult r, const char* call, int line) {
    if (r == CUDA_SUCCESS) return;
    const char* name;
    cuGetErrorName(r, &name);
    fprintf(stderr, "line %d: %s: %s\n", line, call, name);
    exit(1);
}
static void check(cudaError_t e, const char* call, int line) {
    if (e == cudaSuccess) return;
    fprintf(stderr, "line %d: %s: %s\n", line, call, cudaGetErrorName(e));
    exit(1);
}
#define CHECK(call) check((call), #call, __LINE__)

__global__ void write_a_read_b(volatile int* a, volatile int* b, int* out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    a[i] = i + 1;
    asm volatile("fence.proxy.alias;" ::: "memory");
    out[i] = b[i];
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
    CUmemGenericAllocationHandle phys;
    CHECK(cuMemCreate(&phys, size, &prop, 0));
    CUdeviceptr a, b;
    CHECK(cuMemAddressReserve(&a, size, 0, 0, 0));
    CHECK(cuMemAddressReserve(&b, size, 0, 0, 0));
    CHECK(cuMemMap(a, size, 0, phys, 0));
    CHECK(cuMemMap(b, size, 0, phys, 0));
    CUmemAccessDesc access = {};
    access.location = prop.location;
    access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    CHECK(cuMemSetAccess(a, size, &access, 1));
    CHECK(cuMemSetAccess(b, size, &access, 1));

    const int n = (int)(size / sizeof(int)), launches = 200;
    int* out;
    CHECK(cudaMalloc(&out, n * sizeof(int)));
    int* host = (int*)malloc(n * sizeof(int));
    long stale = 0;
    int launches_with_stale = 0;
    for (int l = 0; l < launches; ++l) {
        CHECK(cuMemsetD8(a, 0, size));
        write_a_read_b<<<n / 256, 256>>>((int*)a, (int*)b, out);
        CHECK(cudaGetLastError());
        CHECK(cudaMemcpy(host, out, n * sizeof(int), cudaMemcpyDeviceToHost));
        long m = 0;
        for (int i = 0; i < n; ++i) m += (host[i] != i + 1);
        stale += m;
        launches_with_stale += (m > 0);
    }
    printf("unfenced_vmm_alias_fixed: %ld stale reads through alias B in %d launches of %d threads "
           "(launches with any: %d)\n", stale, launches, n, launches_with_stale);

    CHECK(cuMemUnmap(a, size));
    CHECK(cuMemUnmap(b, size));
    CHECK(cuMemRelease(phys));
    CHECK(cuMemAddressFree(a, size));
    CHECK(cuMemAddressFree(b, size));
    CHECK(cudaFree(out));
    free(host);
    CHECK(cuDevicePrimaryCtxRelease(dev));
    return 0;
}

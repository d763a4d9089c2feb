// case: an inference server hot-swaps model weights by unmapping the VMM range and mapping a new physical allocation at the same address, then launches the GEMV on it without calling cuMemSetAccess again for the new mapping.
// expect: vmm_lifecycle=1
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>

#define CHECK_DRV(call) do { CUresult st = (call); if (st != CUDA_SUCCESS) { \
    const char* str; cuGetErrorString(st, &str); fprintf(stderr, "%s -> %s\n", #call, str); exit(1); } } while (0)

__global__ void gemv(const float* W, const float* x, float* y, int rows, int cols) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    float acc = 0.f;
    for (int c = 0; c < cols; ++c) acc += W[(size_t)r * cols + c] * x[c];
    y[r] = acc;
}

struct WeightSlot {
    CUdeviceptr va = 0;
    size_t bytes = 0;
    CUmemGenericAllocationHandle handle = 0;
    CUmemAllocationProp prop = {};
    CUmemAccessDesc access = {};
};

static void create_version(WeightSlot& slot) {
    CHECK_DRV(cuMemCreate(&slot.handle, slot.bytes, &slot.prop, 0));
    CHECK_DRV(cuMemMap(slot.va, slot.bytes, 0, slot.handle, 0));
}

int main() {
    CHECK_DRV(cuInit(0));
    CUdevice dev; CHECK_DRV(cuDeviceGet(&dev, 0));
    CUcontext ctx; CHECK_DRV(cuDevicePrimaryCtxRetain(&ctx, dev)); CHECK_DRV(cuCtxSetCurrent(ctx));
    CUstream s; CHECK_DRV(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));

    const int rows = 8192, cols = 2048;
    WeightSlot slot;
    slot.prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    slot.prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    slot.prop.location.id = 0;
    size_t gran = 0;
    CHECK_DRV(cuMemGetAllocationGranularity(&gran, &slot.prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    slot.bytes = (((size_t)rows * cols * sizeof(float)) + gran - 1) / gran * gran;
    slot.access.location = slot.prop.location;
    slot.access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    CHECK_DRV(cuMemAddressReserve(&slot.va, slot.bytes, 0, 0, 0));

    CUdeviceptr x, y;
    CHECK_DRV(cuMemAlloc(&x, cols * sizeof(float)));
    CHECK_DRV(cuMemAlloc(&y, rows * sizeof(float)));
    CHECK_DRV(cuMemsetD32Async(x, 0x3f800000u, cols, s));

    // version 1
    create_version(slot);
    CHECK_DRV(cuMemSetAccess(slot.va, slot.bytes, &slot.access, 1));
    CHECK_DRV(cuMemsetD32Async(slot.va, 0x3f000000u, slot.bytes / 4, s));
    gemv<<<rows / 256, 256, 0, (cudaStream_t)s>>>((const float*)slot.va, (const float*)x, (float*)y, rows, cols);
    CHECK_DRV(cuStreamSynchronize(s));

    // hot swap to version 2: the old mapping goes, the new one has no access yet
    CHECK_DRV(cuMemUnmap(slot.va, slot.bytes));
    CHECK_DRV(cuMemRelease(slot.handle));
    create_version(slot);
    gemv<<<rows / 256, 256, 0, (cudaStream_t)s>>>((const float*)slot.va, (const float*)x, (float*)y, rows, cols);
    CHECK_DRV(cuStreamSynchronize(s));

    CHECK_DRV(cuMemUnmap(slot.va, slot.bytes));
    CHECK_DRV(cuMemRelease(slot.handle));
    CHECK_DRV(cuMemAddressFree(slot.va, slot.bytes));
    CHECK_DRV(cuMemFree(y));
    CHECK_DRV(cuMemFree(x));
    CHECK_DRV(cuStreamDestroy(s));
    printf("served two weight versions\n");
    return 0;
}

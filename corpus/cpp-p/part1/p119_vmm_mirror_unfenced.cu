// case: a mirrored ring buffer maps one physical allocation at base and at base + size; one kernel writes each slot through the first view and reads it back through the mirror view with no alias-proxy fence between, so the read may return stale data.
// expect: unfenced_vmm_alias=1
#include <cstdio>
#include <cstdlib>
#include <cuda.h>
#include <cuda_runtime.h>

#define CU_CHECK(x) do { CUresult r_ = (x); if (r_ != CUDA_SUCCESS) { const char* s_ = nullptr; \
    cuGetErrorString(r_, &s_); fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, s_ ? s_ : "?"); exit(1); } } while (0)

// Producer writes records at head through `ring`; the consumer side reads the
// same records through `mirror`, the second mapping of the same pages.
__global__ void push_and_check(unsigned int* ring, const unsigned int* mirror,
                               unsigned int* echoed, size_t head, size_t cap, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        size_t slot = (head + i) % cap;
        ring[slot] = 0xC0DE0000u + i;
        echoed[i] = mirror[slot];
    }
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
    CU_CHECK(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    size_t size = ((4u << 20) + gran - 1) / gran * gran;

    CUdeviceptr base;
    CUmemGenericAllocationHandle pages;
    CU_CHECK(cuMemAddressReserve(&base, 2 * size, 0, 0, 0));
    CU_CHECK(cuMemCreate(&pages, size, &prop, 0));
    CU_CHECK(cuMemMap(base, size, 0, pages, 0));
    CU_CHECK(cuMemMap(base + size, size, 0, pages, 0));
    CUmemAccessDesc access = {};
    access.location = prop.location;
    access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    CU_CHECK(cuMemSetAccess(base, 2 * size, &access, 1));

    const int n = 1 << 16;
    unsigned int* d_echo;
    unsigned int* h_echo;
    CU_CHECK(cuMemAlloc((CUdeviceptr*)&d_echo, n * sizeof(unsigned int)));
    CU_CHECK(cuMemAllocHost((void**)&h_echo, n * sizeof(unsigned int)));

    size_t cap = size / sizeof(unsigned int);
    size_t head = cap - 1000;
    unsigned int* ring = (unsigned int*)base;
    unsigned int* mirror = (unsigned int*)(base + size);
    push_and_check<<<(n + 255) / 256, 256, 0, (cudaStream_t)stream>>>(ring, mirror, d_echo, head, cap, n);  // EXPECT: unfenced_vmm_alias
    CU_CHECK(cuMemcpyDtoHAsync(h_echo, (CUdeviceptr)d_echo, n * sizeof(unsigned int), stream));
    CU_CHECK(cuStreamSynchronize(stream));

    int bad = 0;
    for (int i = 0; i < n; ++i) bad += (h_echo[i] != 0xC0DE0000u + i);
    printf("%d stale reads\n", bad);

    CU_CHECK(cuMemFreeHost(h_echo));
    CU_CHECK(cuMemFree((CUdeviceptr)d_echo));
    CU_CHECK(cuMemUnmap(base + size, size));
    CU_CHECK(cuMemUnmap(base, size));
    CU_CHECK(cuMemRelease(pages));
    CU_CHECK(cuMemAddressFree(base, 2 * size));
    CU_CHECK(cuStreamDestroy(stream));
    CU_CHECK(cuDevicePrimaryCtxRelease(dev));
    return 0;
}

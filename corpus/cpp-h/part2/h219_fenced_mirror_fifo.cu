// case: log-record FIFO on a mirrored VMM ring (one allocation mapped at base and base+size) whose kernel writes through the low view and reads through the high view with fence.proxy.alias in between; access is granted before use and teardown unmaps before freeing the range.
// expect: none
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>

__global__ void push_and_compact(unsigned long long* lo, const unsigned long long* hi, size_t words,
                                 size_t head, const unsigned long long* recs, int n, unsigned long long* out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    size_t slot = (head + i) % words;
    lo[slot] = recs[i] | 1ull;
    asm volatile("fence.proxy.alias;" ::: "memory");
    out[i] = hi[slot] >> 1;
}

#define CU(x) do { CUresult r = (x); if (r != CUDA_SUCCESS) { fprintf(stderr, "%s -> %d\n", #x, (int)r); } } while (0)

int main() {
    CU(cuInit(0));
    CUdevice dev; CUcontext ctx;
    CU(cuDeviceGet(&dev, 0));
    CU(cuDevicePrimaryCtxRetain(&ctx, dev));
    CU(cuCtxSetCurrent(ctx));

    CUmemAllocationProp prop = {};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = dev;
    size_t gran = 0;
    CU(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    const size_t size = 8 * gran;

    CUmemGenericAllocationHandle phys;
    CUdeviceptr base;
    CU(cuMemCreate(&phys, size, &prop, 0));
    CU(cuMemAddressReserve(&base, 2 * size, gran, 0, 0));
    CU(cuMemMap(base, size, 0, phys, 0));
    CU(cuMemMap(base + size, size, 0, phys, 0));
    CUmemAccessDesc acc = {};
    acc.location = prop.location;
    acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    CU(cuMemSetAccess(base, 2 * size, &acc, 1));

    const int n = 4096;
    unsigned long long *d_recs = nullptr, *d_out = nullptr;
    cudaMalloc(&d_recs, n * sizeof(unsigned long long));
    cudaMalloc(&d_out, n * sizeof(unsigned long long));
    cudaMemset(d_recs, 0x22, n * sizeof(unsigned long long));

    cudaStream_t s;
    cudaStreamCreate(&s);
    size_t words = size / sizeof(unsigned long long), head = words - n / 2;
    push_and_compact<<<n / 256, 256, 0, s>>>(reinterpret_cast<unsigned long long*>(base),
        reinterpret_cast<const unsigned long long*>(base + size), words, head, d_recs, n, d_out);
    unsigned long long first = 0;
    cudaMemcpyAsync(&first, d_out, sizeof(first), cudaMemcpyDeviceToHost, s);
    cudaStreamSynchronize(s);
    printf("first compacted record %llx\n", first);

    CU(cuMemUnmap(base, size));
    CU(cuMemUnmap(base + size, size));
    CU(cuMemRelease(phys));
    CU(cuMemAddressFree(base, 2 * size));
    cudaFree(d_recs); cudaFree(d_out);
    cudaStreamDestroy(s);
    CU(cuDevicePrimaryCtxRelease(dev));
    return 0;
}

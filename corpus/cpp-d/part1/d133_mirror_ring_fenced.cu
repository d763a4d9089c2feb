// case: trace-event ring as a mirrored VMM buffer owned by a class (map twice, grant access to both, unmap both before freeing): the append kernel writes each record through the base view and re-reads it through the mirror view, with fence.proxy.alias between the two under RING_ALIAS_FENCE, which the file itself defines to 1: correct.
// expect: none
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define RING_ALIAS_FENCE 1

#define CU_CHECK(call)                                                            \
    do {                                                                          \
        CUresult r_ = (call);                                                     \
        if (r_ != CUDA_SUCCESS) {                                                 \
            const char* s_ = nullptr;                                             \
            cuGetErrorName(r_, &s_);                                              \
            fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, s_ ? s_ : "?");      \
            std::exit(1);                                                         \
        }                                                                         \
    } while (0)

struct TraceRecord { unsigned long long t; unsigned int sm, tag; };

__global__ void append_records(TraceRecord* ring, const TraceRecord* mirror, size_t cap,
                               size_t head, int count, unsigned long long* digest)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count) return;
    size_t slot = (head + i) % cap;
    TraceRecord r;
    r.t = clock64();
    asm volatile("mov.u32 %0, %%smid;" : "=r"(r.sm));
    r.tag = 0xC0DE0000u | (unsigned int)i;
    ring[slot] = r;
#if RING_ALIAS_FENCE
    asm volatile("fence.proxy.alias;" ::: "memory");
#endif
    const TraceRecord back = mirror[slot]; // the consumers' view of the same record
    atomicAdd(digest, (unsigned long long)(back.tag ^ back.sm));
}

class MirroredRing {
public:
    MirroredRing(int device, size_t min_bytes)
    {
        CUmemAllocationProp prop = {};
        prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
        prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        prop.location.id = device;
        size_t g = 0;
        CU_CHECK(cuMemGetAllocationGranularity(&g, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
        size_ = (min_bytes + g - 1) / g * g;
        CU_CHECK(cuMemCreate(&handle_, size_, &prop, 0));
        CU_CHECK(cuMemAddressReserve(&base_, 2 * size_, 0, 0, 0));
        CU_CHECK(cuMemMap(base_, size_, 0, handle_, 0));
        CU_CHECK(cuMemMap(base_ + size_, size_, 0, handle_, 0));
        CUmemAccessDesc acc = {};
        acc.location = prop.location;
        acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
        CU_CHECK(cuMemSetAccess(base_, size_, &acc, 1));
        CU_CHECK(cuMemSetAccess(base_ + size_, size_, &acc, 1));
    }
    ~MirroredRing()
    {
        cuMemUnmap(base_ + size_, size_);
        cuMemUnmap(base_, size_);
        cuMemRelease(handle_);
        cuMemAddressFree(base_, 2 * size_);
    }
    TraceRecord* records() const { return reinterpret_cast<TraceRecord*>(base_); }
    const TraceRecord* mirror() const { return reinterpret_cast<const TraceRecord*>(base_ + size_); }
    size_t capacity() const { return size_ / sizeof(TraceRecord); }
private:
    CUmemGenericAllocationHandle handle_ = 0;
    CUdeviceptr base_ = 0;
    size_t size_ = 0;
};

int main()
{
    CU_CHECK(cuInit(0));
    CUdevice dev;
    CU_CHECK(cuDeviceGet(&dev, 0));
    CUcontext ctx;
    CU_CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CU_CHECK(cuCtxSetCurrent(ctx));

    unsigned long long* d_digest = nullptr;
    cudaMalloc(&d_digest, sizeof(unsigned long long));
    cudaMemset(d_digest, 0, sizeof(unsigned long long));
    {
        MirroredRing ring(0, size_t(4) << 20);
        size_t head = ring.capacity() - 1000; // this batch wraps
        append_records<<<64, 256>>>(ring.records(), ring.mirror(), ring.capacity(), head, 64 * 256, d_digest);
        cudaDeviceSynchronize();
    }
    unsigned long long digest = 0;
    cudaMemcpy(&digest, d_digest, sizeof(digest), cudaMemcpyDeviceToHost);
    printf("trace ring digest %llx\n", digest);

    cudaFree(d_digest);
    CU_CHECK(cuDevicePrimaryCtxRelease(dev));
    return 0;
}

// case: mirrored trace ring for a profiler (one allocation mapped at base and base+size): the kernel's fence.proxy.alias sits under #ifdef TRACE_RING_STRICT, which the default build does not define, so it writes through the base view and reads through the mirror unfenced
// expect: unfenced_vmm_alias=1
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#define CU_CHECK(call)                                                       \
    do {                                                                     \
        CUresult r_ = (call);                                                \
        if (r_ != CUDA_SUCCESS) {                                            \
            const char* msg_ = nullptr;                                      \
            cuGetErrorString(r_, &msg_);                                     \
            std::fprintf(stderr, "%s failed: %s\n", #call, msg_);            \
            std::exit(EXIT_FAILURE);                                         \
        }                                                                    \
    } while (0)

struct TraceRecord {
    uint64_t timestamp;
    uint32_t sm;
    uint32_t tag;
};

__global__ void record_and_window(TraceRecord* ring, const TraceRecord* mirror, size_t capacity,
                                  size_t head, uint64_t* window_sum, int count) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count) return;
    TraceRecord r;
    r.timestamp = clock64();
    r.sm = blockIdx.x;
    r.tag = static_cast<uint32_t>(i);
    size_t slot = (head + i) % capacity;
    ring[slot] = r;
#ifdef TRACE_RING_STRICT
    asm volatile("fence.proxy.alias;" ::: "memory");
#endif
    atomicAdd(reinterpret_cast<unsigned long long*>(window_sum),
              static_cast<unsigned long long>(mirror[slot].tag));
}

struct TraceRing {
    CUmemGenericAllocationHandle handle = 0;
    CUdeviceptr base = 0;
    size_t size = 0;

    void create(int device, size_t min_bytes) {
        CUmemAllocationProp prop = {};
        prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
        prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        prop.location.id = device;
        size_t gran = 0;
        CU_CHECK(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
        this->size = (min_bytes + gran - 1) / gran * gran;
        CU_CHECK(cuMemCreate(&this->handle, this->size, &prop, 0));
        CU_CHECK(cuMemAddressReserve(&this->base, 2 * this->size, 0, 0, 0));
        CU_CHECK(cuMemMap(this->base, this->size, 0, this->handle, 0));
        CU_CHECK(cuMemMap(this->base + this->size, this->size, 0, this->handle, 0));
        CUmemAccessDesc access = {};
        access.location = prop.location;
        access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
        CU_CHECK(cuMemSetAccess(this->base, 2 * this->size, &access, 1));
    }

    void destroy() {
        CU_CHECK(cuMemUnmap(base, 2 * size));
        CU_CHECK(cuMemRelease(handle));
        CU_CHECK(cuMemAddressFree(base, 2 * size));
    }
};

int main() {
    CU_CHECK(cuInit(0));
    cudaSetDevice(0);
    cudaFree(0);
    TraceRing ring;
    ring.create(0, 8u << 20);
    size_t capacity = ring.size / sizeof(TraceRecord);
    uint64_t* d_sum = nullptr;
    cudaMalloc(&d_sum, sizeof(uint64_t));
    cudaMemset(d_sum, 0, sizeof(uint64_t));
    cudaStream_t s;
    cudaStreamCreate(&s);

    const int batch = 8192;
    size_t head = capacity - 2048;
    TraceRecord* view = reinterpret_cast<TraceRecord*>(ring.base);
    const TraceRecord* mirror = reinterpret_cast<const TraceRecord*>(ring.base + ring.size);
    record_and_window<<<batch / 256, 256, 0, s>>>(view, mirror, capacity, head, d_sum, batch); // EXPECT: unfenced_vmm_alias
    cudaStreamSynchronize(s);

    uint64_t sum = 0;
    cudaMemcpy(&sum, d_sum, sizeof(sum), cudaMemcpyDeviceToHost);
    std::printf("window tag sum %llu\n", static_cast<unsigned long long>(sum));
    cudaStreamDestroy(s);
    cudaFree(d_sum);
    ring.destroy();
    return 0;
}

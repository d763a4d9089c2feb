// case: log-shipping ring buffer maps one physical allocation twice (base and base + size) so windows never wrap; one kernel appends records through the primary view and reads them back through the mirror view with no fence.proxy.alias
// expect: unfenced_vmm_alias=1
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstdint>

#define CU_CHECK(x)                                                            \
    do {                                                                       \
        CUresult r_ = (x);                                                     \
        if (r_ != CUDA_SUCCESS) {                                              \
            const char* m_ = nullptr;                                          \
            cuGetErrorString(r_, &m_);                                         \
            std::fprintf(stderr, "%s: %s\n", #x, m_);                          \
            std::exit(1);                                                      \
        }                                                                      \
    } while (0)

__device__ __forceinline__ uint32_t make_record(size_t seq) {
    return (uint32_t)(seq * 2654435761u) ^ 0xA5A5A5A5u;
}

// Appends n records at head through `ring`, then each thread forwards its record through the
// consumer's (mirrored) view of the same slot.
__global__ void append_and_forward(uint32_t* ring, const uint32_t* ring_mirror, size_t cap,
                                   size_t head, size_t n, uint32_t* shipped) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= n) return;
    ring[(head + i) % cap] = make_record(head + i);
    shipped[i] = ring_mirror[(head + i) % cap];  // same bytes, seen through the mirror mapping
}

int main() {
    CU_CHECK(cuInit(0));
    cudaSetDevice(0);
    cudaFree(0);

    CUmemAllocationProp prop = {};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = 0;
    size_t gran = 0;
    CU_CHECK(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    const size_t size = 4 * gran;
    const size_t cap = size / sizeof(uint32_t);

    CUmemGenericAllocationHandle handle;
    CUdeviceptr base = 0;
    CU_CHECK(cuMemCreate(&handle, size, &prop, 0));
    CU_CHECK(cuMemAddressReserve(&base, 2 * size, 0, 0, 0));
    CU_CHECK(cuMemMap(base, size, 0, handle, 0));
    CU_CHECK(cuMemMap(base + size, size, 0, handle, 0));
    CUmemAccessDesc acc = {};
    acc.location = prop.location;
    acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    CU_CHECK(cuMemSetAccess(base, 2 * size, &acc, 1));

    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    const size_t batch = 8192;
    uint32_t* d_shipped = nullptr;
    uint32_t* h_shipped = nullptr;
    cudaMalloc(&d_shipped, batch * sizeof(uint32_t));
    cudaMallocHost(&h_shipped, batch * sizeof(uint32_t));

    size_t head = cap - 1000;  // this batch wraps around the end of the ring
    append_and_forward<<<(unsigned)((batch + 255) / 256), 256, 0, s>>>(reinterpret_cast<uint32_t*>(base), reinterpret_cast<const uint32_t*>(base + size), cap, head, batch, d_shipped); // EXPECT: unfenced_vmm_alias
    cudaMemcpyAsync(h_shipped, d_shipped, batch * sizeof(uint32_t), cudaMemcpyDeviceToHost, s);
    cudaStreamSynchronize(s);
    std::printf("first shipped record %08x\n", h_shipped[0]);

    cudaFreeHost(h_shipped);
    cudaFree(d_shipped);
    CU_CHECK(cuMemUnmap(base, size));
    CU_CHECK(cuMemUnmap(base + size, size));
    CU_CHECK(cuMemRelease(handle));
    CU_CHECK(cuMemAddressFree(base, 2 * size));
    cudaStreamDestroy(s);
    return 0;
}

// case: elastic KV-cache pool shrinks by unmapping its last chunk right after queuing the compaction kernel that still reads that chunk, with no stream synchronization before cuMemUnmap (which does not wait for the device)
// expect: missing_sync=1
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

// moves the live blocks of the tail chunk into free slots of the head chunk
__global__ void compact_blocks(const float* tail_chunk, float* head_chunk, const int* remap, int live_blocks, int block_elems) {
    int b = blockIdx.x;
    if (b >= live_blocks) return;
    for (int e = threadIdx.x; e < block_elems; e += blockDim.x)
        head_chunk[(size_t)remap[b] * block_elems + e] = tail_chunk[(size_t)b * block_elems + e];
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
    CU_CHECK(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED));
    const size_t chunk = 16 * gran;

    CUdeviceptr base = 0;
    CU_CHECK(cuMemAddressReserve(&base, 2 * chunk, 0, 0, 0));
    CUmemGenericAllocationHandle head_h, tail_h;
    CU_CHECK(cuMemCreate(&head_h, chunk, &prop, 0));
    CU_CHECK(cuMemCreate(&tail_h, chunk, &prop, 0));
    CU_CHECK(cuMemMap(base, chunk, 0, head_h, 0));
    CU_CHECK(cuMemMap(base + chunk, chunk, 0, tail_h, 0));
    CUmemAccessDesc acc = {};
    acc.location = prop.location;
    acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    CU_CHECK(cuMemSetAccess(base, 2 * chunk, &acc, 1));

    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    const int block_elems = 4096, live = 64;
    int* d_remap = nullptr;
    cudaMalloc(&d_remap, live * sizeof(int));
    cudaMemsetAsync(d_remap, 0, live * sizeof(int), s);

    float* head = reinterpret_cast<float*>(base);
    const float* tail = reinterpret_cast<const float*>(base + chunk);
    compact_blocks<<<live, 256, 0, s>>>(tail, head, d_remap, live, block_elems);

    // shrink: give the tail chunk back
    CU_CHECK(cuMemUnmap(base + chunk, chunk)); // EXPECT: missing_sync
    CU_CHECK(cuMemRelease(tail_h));

    cudaStreamSynchronize(s);
    CU_CHECK(cuMemUnmap(base, chunk));
    CU_CHECK(cuMemRelease(head_h));
    CU_CHECK(cuMemAddressFree(base, 2 * chunk));
    cudaFree(d_remap);
    cudaStreamDestroy(s);
    return 0;
}

// case: a read aligner builds its seed index through one VMM mapping on the build stream and queries it through a second mapping of the same allocation on the query stream; an event recorded after the build and waited on by the query stream orders the two aliases, as the Virtual Aliasing section allows at operation boundaries.
// expect: none
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define DRV_CHECK(x)                                                               \
    do {                                                                           \
        CUresult rc_ = (x);                                                        \
        if (rc_ != CUDA_SUCCESS) {                                                 \
            std::fprintf(stderr, "%s failed (%d)\n", #x, static_cast<int>(rc_));   \
            std::exit(1);                                                          \
        }                                                                          \
    } while (0)
#define RT_CHECK(x)                                                                \
    do {                                                                           \
        cudaError_t rc_ = (x);                                                     \
        if (rc_ != cudaSuccess) {                                                  \
            std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(rc_));         \
            std::exit(1);                                                          \
        }                                                                          \
    } while (0)

constexpr int kSeedBits = 20;
constexpr size_t kBuckets = size_t(1) << kSeedBits;

__global__ void build_seed_index(uint32_t* index_w, const uint8_t* ref, size_t ref_len) {
    size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    if (i + 10 > ref_len) return;
    uint32_t key = 0;
    for (int k = 0; k < 10; ++k) key = (key << 2) | ref[i + k];
    atomicMin(&index_w[key & (kBuckets - 1)], static_cast<uint32_t>(i));
}

__global__ void query_seeds(const uint32_t* index_r, const uint32_t* read_keys, int reads, uint32_t* hits) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < reads) hits[r] = index_r[read_keys[r] & (kBuckets - 1)];
}

int main() {
    RT_CHECK(cudaSetDevice(0));
    RT_CHECK(cudaFree(nullptr));

    CUmemAllocationProp prop{};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = 0;
    size_t gran = 0;
    DRV_CHECK(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    const size_t bytes = (kBuckets * sizeof(uint32_t) + gran - 1) / gran * gran;

    CUmemGenericAllocationHandle h{};
    CUdeviceptr build_view = 0, query_view = 0;
    DRV_CHECK(cuMemCreate(&h, bytes, &prop, 0));
    DRV_CHECK(cuMemAddressReserve(&build_view, bytes, 0, 0, 0));
    DRV_CHECK(cuMemAddressReserve(&query_view, bytes, 0, 0, 0));
    DRV_CHECK(cuMemMap(build_view, bytes, 0, h, 0));
    DRV_CHECK(cuMemMap(query_view, bytes, 0, h, 0));
    CUmemAccessDesc access{};
    access.location = prop.location;
    access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    DRV_CHECK(cuMemSetAccess(build_view, bytes, &access, 1));
    DRV_CHECK(cuMemSetAccess(query_view, bytes, &access, 1));

    const size_t ref_len = size_t(1) << 24;
    const int reads = 1 << 16;
    uint8_t* d_ref = nullptr;
    uint32_t *d_keys = nullptr, *d_hits = nullptr;
    RT_CHECK(cudaMalloc(&d_ref, ref_len));
    RT_CHECK(cudaMalloc(&d_keys, reads * sizeof(uint32_t)));
    RT_CHECK(cudaMalloc(&d_hits, reads * sizeof(uint32_t)));

    cudaStream_t build, query;
    RT_CHECK(cudaStreamCreateWithFlags(&build, cudaStreamNonBlocking));
    RT_CHECK(cudaStreamCreateWithFlags(&query, cudaStreamNonBlocking));
    cudaEvent_t index_ready;
    RT_CHECK(cudaEventCreateWithFlags(&index_ready, cudaEventDisableTiming));

    RT_CHECK(cudaMemsetAsync(d_ref, 2, ref_len, build));
    DRV_CHECK(cuMemsetD32Async(build_view, 0xffffffffu, bytes / sizeof(uint32_t), build));
    build_seed_index<<<static_cast<unsigned>((ref_len + 255) / 256), 256, 0, build>>>(
        reinterpret_cast<uint32_t*>(build_view), d_ref, ref_len);
    RT_CHECK(cudaEventRecord(index_ready, build));

    RT_CHECK(cudaMemsetAsync(d_keys, 0, reads * sizeof(uint32_t), query));
    RT_CHECK(cudaStreamWaitEvent(query, index_ready, 0));
    query_seeds<<<(reads + 255) / 256, 256, 0, query>>>(reinterpret_cast<const uint32_t*>(query_view), d_keys, reads, d_hits);
    RT_CHECK(cudaStreamSynchronize(query));

    std::vector<uint32_t> hits(reads);
    RT_CHECK(cudaMemcpy(hits.data(), d_hits, reads * sizeof(uint32_t), cudaMemcpyDeviceToHost));
    std::printf("first read seeds at reference offset %u\n", hits[0]);

    RT_CHECK(cudaStreamSynchronize(build));
    DRV_CHECK(cuMemUnmap(build_view, bytes));
    DRV_CHECK(cuMemUnmap(query_view, bytes));
    DRV_CHECK(cuMemRelease(h));
    DRV_CHECK(cuMemAddressFree(build_view, bytes));
    DRV_CHECK(cuMemAddressFree(query_view, bytes));
    RT_CHECK(cudaEventDestroy(index_ready));
    RT_CHECK(cudaStreamDestroy(build));
    RT_CHECK(cudaStreamDestroy(query));
    cudaFree(d_hits);
    cudaFree(d_keys);
    cudaFree(d_ref);
    return 0;
}

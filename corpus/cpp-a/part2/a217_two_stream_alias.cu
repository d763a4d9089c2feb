// case: zero-copy shuffle stage: one physical allocation is mapped into a producer range and a consumer range; the partition kernel writes through the producer mapping on one stream and the reduce kernel reads through the consumer mapping on another stream, with no event between them
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
            std::fprintf(stderr, "%s failed (%d)\n", #x, (int)r_);             \
            std::exit(1);                                                      \
        }                                                                      \
    } while (0)
#define CUDA_CHECK(x)                                                          \
    do {                                                                       \
        cudaError_t e_ = (x);                                                  \
        if (e_ != cudaSuccess) {                                               \
            std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_));       \
            std::exit(1);                                                      \
        }                                                                      \
    } while (0)

__global__ void partition_rows(const int64_t* keys, size_t n, int parts, int64_t* out) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) out[i] = keys[i] % parts;
}

__global__ void reduce_parts(const int64_t* part_ids, size_t n, unsigned long long* counts) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&counts[part_ids[i]], 1ull);
}

struct ShuffleBuffer {
    CUmemGenericAllocationHandle handle;
    CUdeviceptr producer_view;
    CUdeviceptr consumer_view;
    size_t bytes;
};

static ShuffleBuffer make_shuffle_buffer(size_t min_bytes) {
    ShuffleBuffer sb{};
    CUmemAllocationProp prop = {};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = 0;
    size_t gran = 0;
    CU_CHECK(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    sb.bytes = ((min_bytes + gran - 1) / gran) * gran;
    CU_CHECK(cuMemCreate(&sb.handle, sb.bytes, &prop, 0));
    CU_CHECK(cuMemAddressReserve(&sb.producer_view, sb.bytes, 0, 0, 0));
    CU_CHECK(cuMemAddressReserve(&sb.consumer_view, sb.bytes, 0, 0, 0));
    CU_CHECK(cuMemMap(sb.producer_view, sb.bytes, 0, sb.handle, 0));
    CU_CHECK(cuMemMap(sb.consumer_view, sb.bytes, 0, sb.handle, 0));
    CUmemAccessDesc acc = {};
    acc.location = prop.location;
    acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    CU_CHECK(cuMemSetAccess(sb.producer_view, sb.bytes, &acc, 1));
    CU_CHECK(cuMemSetAccess(sb.consumer_view, sb.bytes, &acc, 1));
    return sb;
}

int main() {
    CU_CHECK(cuInit(0));
    CUDA_CHECK(cudaSetDevice(0));
    CUDA_CHECK(cudaFree(0));

    const size_t n = 1u << 22;
    const int parts = 64;
    ShuffleBuffer sb = make_shuffle_buffer(n * sizeof(int64_t));

    cudaStream_t map_stream, reduce_stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&map_stream, cudaStreamNonBlocking));
    CUDA_CHECK(cudaStreamCreateWithFlags(&reduce_stream, cudaStreamNonBlocking));

    int64_t* d_keys = nullptr;
    unsigned long long* d_counts = nullptr;
    unsigned long long* h_counts = nullptr;
    CUDA_CHECK(cudaMalloc(&d_keys, n * sizeof(int64_t)));
    CUDA_CHECK(cudaMalloc(&d_counts, parts * sizeof(unsigned long long)));
    CUDA_CHECK(cudaMallocHost(&h_counts, parts * sizeof(unsigned long long)));
    CUDA_CHECK(cudaMemset(d_keys, 3, n * sizeof(int64_t)));
    CUDA_CHECK(cudaMemset(d_counts, 0, parts * sizeof(unsigned long long)));
    CUDA_CHECK(cudaDeviceSynchronize());

    const unsigned grid = (unsigned)((n + 255) / 256);
    partition_rows<<<grid, 256, 0, map_stream>>>(d_keys, n, parts, reinterpret_cast<int64_t*>(sb.producer_view));
    reduce_parts<<<grid, 256, 0, reduce_stream>>>(reinterpret_cast<const int64_t*>(sb.consumer_view), n, d_counts); // EXPECT: unfenced_vmm_alias
    CUDA_CHECK(cudaMemcpyAsync(h_counts, d_counts, parts * sizeof(unsigned long long), cudaMemcpyDeviceToHost, reduce_stream));
    CUDA_CHECK(cudaDeviceSynchronize());
    std::printf("part 0 has %llu rows\n", h_counts[0]);

    CU_CHECK(cuMemUnmap(sb.producer_view, sb.bytes));
    CU_CHECK(cuMemUnmap(sb.consumer_view, sb.bytes));
    CU_CHECK(cuMemRelease(sb.handle));
    CU_CHECK(cuMemAddressFree(sb.producer_view, sb.bytes));
    CU_CHECK(cuMemAddressFree(sb.consumer_view, sb.bytes));
    cudaFreeHost(h_counts);
    cudaFree(d_counts);
    cudaFree(d_keys);
    return 0;
}

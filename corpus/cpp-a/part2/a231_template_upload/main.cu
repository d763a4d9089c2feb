// case: join build side: the dictionary codes are uploaded through a header template helper xfer::upload_async<uint32_t> instantiated with a std::vector (pageable) while the payload goes through the pinned helper; the pageable copy is in transfer.cuh
// expect: pageable_async_copy=1
#include "transfer.cuh"
#include <cstdint>

__global__ void build_join_index(const uint32_t* codes, const uint64_t* payload, size_t n,
                                 unsigned long long* buckets, uint32_t nbuckets) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&buckets[codes[i] % nbuckets], (unsigned long long)payload[i]);
}

int main() {
    const size_t n = 1u << 21;
    const uint32_t nbuckets = 1u << 16;
    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

    std::vector<uint32_t> codes(n);
    for (size_t i = 0; i < n; ++i) codes[i] = static_cast<uint32_t>((i * 40503u) & 0xffffu);

    uint64_t* h_payload = nullptr;
    CUDA_CHECK(cudaMallocHost(&h_payload, n * sizeof(uint64_t)));
    for (size_t i = 0; i < n; ++i) h_payload[i] = i;

    uint32_t* d_codes = xfer::device_alloc<uint32_t>(n);
    uint64_t* d_payload = xfer::device_alloc<uint64_t>(n);
    unsigned long long* d_buckets = xfer::device_alloc<unsigned long long>(nbuckets);
    CUDA_CHECK(cudaMemsetAsync(d_buckets, 0, nbuckets * sizeof(unsigned long long), s));

    xfer::upload_async<uint32_t>(d_codes, codes, s);
    xfer::upload_pinned_async(d_payload, h_payload, n, s);
    build_join_index<<<(unsigned)((n + 255) / 256), 256, 0, s>>>(d_codes, d_payload, n, d_buckets, nbuckets);

    unsigned long long first = 0;
    CUDA_CHECK(cudaMemcpyAsync(&first, d_buckets, sizeof(first), cudaMemcpyDeviceToHost, s));
    CUDA_CHECK(cudaStreamSynchronize(s));
    std::printf("bucket 0 sum %llu\n", first);

    CUDA_CHECK(cudaFreeHost(h_payload));
    CUDA_CHECK(cudaFree(d_codes));
    CUDA_CHECK(cudaFree(d_payload));
    CUDA_CHECK(cudaFree(d_buckets));
    CUDA_CHECK(cudaStreamDestroy(s));
    return 0;
}

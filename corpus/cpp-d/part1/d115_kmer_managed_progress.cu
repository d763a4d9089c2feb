// case: k-mer counter with managed memory: while the counting kernel runs, the host fills the next batch's managed metadata (which that kernel does not use: a fault on devices without concurrent managed access) and then peeks at the managed count table the kernel is writing, before the stream synchronize.
// expect: managed_concurrent_access=1, missing_sync=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CUDA_CHECK(call)                                                          \
    do {                                                                          \
        cudaError_t e_ = (call);                                                  \
        if (e_ != cudaSuccess) {                                                  \
            fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
            std::exit(1);                                                         \
        }                                                                         \
    } while (0)

constexpr int kBuckets = 1 << 20;

struct BatchMeta {
    int batch_id;
    int num_reads;
    int read_len;
    int k;
};

__device__ inline int encode(char b) { return b == 'A' ? 0 : b == 'C' ? 1 : b == 'G' ? 2 : 3; }

__global__ void count_kmers(const char* reads, int num_reads, int read_len, int k,
                            unsigned int* counts)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= num_reads) return;
    const char* s = reads + (size_t)r * read_len;
    unsigned long long code = 0, mask = (1ULL << (2 * k)) - 1;
    for (int i = 0; i < read_len; ++i) {
        code = ((code << 2) | encode(s[i])) & mask;
        if (i >= k - 1) atomicAdd(&counts[(code * 0x9E3779B97F4A7C15ULL >> 44) % kBuckets], 1u);
    }
}

int main()
{
    const int num_reads = 500000, read_len = 150, k = 21;
    std::vector<char> reads((size_t)num_reads * read_len);
    const char alpha[4] = {'A', 'C', 'G', 'T'};
    for (size_t i = 0; i < reads.size(); ++i) reads[i] = alpha[(i * 7 + i / 13) & 3];

    unsigned int* counts = nullptr;
    BatchMeta* next_meta = nullptr;
    char* d_reads = nullptr;
    CUDA_CHECK(cudaMallocManaged(&counts, kBuckets * sizeof(unsigned int)));
    CUDA_CHECK(cudaMallocManaged(&next_meta, sizeof(BatchMeta)));
    CUDA_CHECK(cudaMalloc(&d_reads, reads.size()));
    std::memset(counts, 0, kBuckets * sizeof(unsigned int));

    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreate(&s));
    CUDA_CHECK(cudaMemcpy(d_reads, reads.data(), reads.size(), cudaMemcpyHostToDevice));

    count_kmers<<<(num_reads + 127) / 128, 128, 0, s>>>(d_reads, num_reads, read_len, k, counts);
    CUDA_CHECK(cudaGetLastError());

    // overlap: describe the next batch while this one is counted
    next_meta->batch_id = 1; // EXPECT: managed_concurrent_access
    next_meta->num_reads = num_reads;
    next_meta->read_len = read_len;
    next_meta->k = k;

    unsigned int first_bucket = counts[0]; // EXPECT: missing_sync
    printf("progress: bucket 0 holds %u so far\n", first_bucket);

    CUDA_CHECK(cudaStreamSynchronize(s));
    unsigned long long total = 0;
    unsigned int max_bucket = 0;
    for (int b = 0; b < kBuckets; ++b) {
        total += counts[b];
        if (counts[b] > max_bucket) max_bucket = counts[b];
    }
    printf("batch 0: %llu k-mers, fullest bucket %u; next batch %d has %d reads\n", total,
           max_bucket, next_meta->batch_id, next_meta->num_reads);

    CUDA_CHECK(cudaStreamDestroy(s));
    CUDA_CHECK(cudaFree(d_reads));
    CUDA_CHECK(cudaFree(next_meta));
    CUDA_CHECK(cudaFree(counts));
    return 0;
}

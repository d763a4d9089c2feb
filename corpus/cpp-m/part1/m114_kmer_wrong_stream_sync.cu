// case: A k-mer counter uploads a DNA read set from a std::string (pageable, run-time size: pageable_async_copy) on an upload stream, counts on a compute stream ordered by an event, downloads counts into pinned memory on the compute stream, then synchronizes only the upload stream before reading the counts (missing_sync at the first count read).
// expect: pageable_async_copy=1, missing_sync=1
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#define CUDA_CHECK(x)                                                              \
    do {                                                                           \
        cudaError_t e = (x);                                                       \
        if (e != cudaSuccess) {                                                    \
            std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,                \
                         cudaGetErrorString(e));                                   \
            std::exit(EXIT_FAILURE);                                               \
        }                                                                          \
    } while (0)

constexpr int kK = 8;                   // 8-mers
constexpr int kTableSize = 1 << (2 * kK);  // 65536 counters

__device__ __forceinline__ int base_code(char c) {
    switch (c) {
        case 'A': return 0;
        case 'C': return 1;
        case 'G': return 2;
        case 'T': return 3;
        default: return -1;
    }
}

__global__ void count_kmers(const char* __restrict__ seq, size_t len, unsigned int* counts) {
    size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    if (i + kK > len) return;
    unsigned code = 0;
    for (int j = 0; j < kK; ++j) {
        int b = base_code(seq[i + j]);
        if (b < 0) return;
        code = (code << 2) | unsigned(b);
    }
    atomicAdd(&counts[code], 1u);
}

static std::string synthetic_reads(size_t len) {
    static const char bases[] = "ACGT";
    std::string s(len, 'A');
    uint64_t x = 88172645463325252ull;
    for (size_t i = 0; i < len; ++i) {
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        s[i] = (i % 151 == 150) ? 'N' : bases[x & 3];
    }
    return s;
}

int main(int argc, char** argv) {
    size_t len = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : (size_t(64) << 20);
    std::string reads = synthetic_reads(len);

    cudaStream_t upload, compute;
    cudaEvent_t uploaded;
    CUDA_CHECK(cudaStreamCreateWithFlags(&upload, cudaStreamNonBlocking));
    CUDA_CHECK(cudaStreamCreateWithFlags(&compute, cudaStreamNonBlocking));
    CUDA_CHECK(cudaEventCreateWithFlags(&uploaded, cudaEventDisableTiming));

    char* d_seq = nullptr;
    unsigned int* d_counts = nullptr;
    unsigned int* h_counts = nullptr;
    CUDA_CHECK(cudaMalloc(&d_seq, reads.size()));
    CUDA_CHECK(cudaMalloc(&d_counts, kTableSize * sizeof(unsigned int)));
    CUDA_CHECK(cudaMallocHost(&h_counts, kTableSize * sizeof(unsigned int)));

    CUDA_CHECK(cudaMemcpyAsync(d_seq, reads.data(), reads.size(), cudaMemcpyHostToDevice, upload));  // EXPECT: pageable_async_copy
    CUDA_CHECK(cudaEventRecord(uploaded, upload));

    CUDA_CHECK(cudaMemsetAsync(d_counts, 0, kTableSize * sizeof(unsigned int), compute));
    CUDA_CHECK(cudaStreamWaitEvent(compute, uploaded, 0));
    count_kmers<<<unsigned((reads.size() + 255) / 256), 256, 0, compute>>>(d_seq, reads.size(), d_counts);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpyAsync(h_counts, d_counts, kTableSize * sizeof(unsigned int),
                               cudaMemcpyDeviceToHost, compute));

    CUDA_CHECK(cudaStreamSynchronize(upload));
    unsigned best = 0;
    for (int k = 1; k < kTableSize; ++k)
        if (h_counts[k] > h_counts[best]) best = unsigned(k);  // EXPECT: missing_sync
    char kmer[kK + 1] = {};
    for (int j = kK - 1; j >= 0; --j) kmer[kK - 1 - j] = "ACGT"[(best >> (2 * j)) & 3];
    std::printf("most frequent %d-mer: %s (%u times)\n", kK, kmer, h_counts[best]);

    CUDA_CHECK(cudaStreamSynchronize(compute));
    CUDA_CHECK(cudaFreeHost(h_counts));
    CUDA_CHECK(cudaFree(d_counts));
    CUDA_CHECK(cudaFree(d_seq));
    CUDA_CHECK(cudaEventDestroy(uploaded));
    CUDA_CHECK(cudaStreamDestroy(compute));
    CUDA_CHECK(cudaStreamDestroy(upload));
    return 0;
}

// case: a k-mer counter page-locks its read buffer (a std::vector) with cudaHostRegister and streams FASTQ chunks through it; after the async upload of one chunk the parser refills the same vector for the next chunk with no wait, while the registered (pinned) source may still be read by the copy.
// expect: missing_sync=1
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>

#define CHECK_CUDA(expr)                                                   \
    do {                                                                   \
        cudaError_t s_ = (expr);                                           \
        if (s_ != cudaSuccess) {                                           \
            std::fprintf(stderr, "cuda: %s at %s:%d\n",                    \
                         cudaGetErrorString(s_), __FILE__, __LINE__);      \
            return 1;                                                      \
        }                                                                  \
    } while (0)

constexpr int kK = 15;
constexpr size_t kChunkBases = size_t(1) << 24;   // 16 Mi bases per chunk
constexpr size_t kTableSize = size_t(1) << 22;

__global__ void count_kmers(const uint8_t* bases, size_t n, unsigned int* table) {
    size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    if (i + kK > n) return;
    uint64_t code = 0;
    for (int j = 0; j < kK; ++j) code = (code << 2) | (bases[i + j] & 3u);
    atomicAdd(&table[(code * 0x9E3779B97F4A7C15ull) >> 42], 1u);
}

// Stand-in for the FASTQ parser: packs the next chunk of 2-bit bases into `out`.
static void parse_next_chunk(std::vector<uint8_t>& out, unsigned seed) {
    uint32_t x = seed * 2654435761u + 1u;
    std::generate(out.begin(), out.end(), [&x] {
        x ^= x << 13; x ^= x >> 17; x ^= x << 5;
        return static_cast<uint8_t>(x & 3u);
    });
}

int main() {
    std::vector<uint8_t> chunk(kChunkBases);
    std::vector<unsigned int> histogram(kTableSize);

    CHECK_CUDA(cudaHostRegister(chunk.data(), chunk.size(), cudaHostRegisterDefault));

    uint8_t* d_bases = nullptr;
    unsigned int* d_table = nullptr;
    CHECK_CUDA(cudaMalloc(&d_bases, kChunkBases));
    CHECK_CUDA(cudaMalloc(&d_table, kTableSize * sizeof(unsigned int)));
    CHECK_CUDA(cudaMemset(d_table, 0, kTableSize * sizeof(unsigned int)));

    cudaStream_t stream;
    CHECK_CUDA(cudaStreamCreate(&stream));

    parse_next_chunk(chunk, 1);
    CHECK_CUDA(cudaMemcpyAsync(d_bases, chunk.data(), chunk.size(),
                               cudaMemcpyHostToDevice, stream));
    count_kmers<<<(kChunkBases + 255) / 256, 256, 0, stream>>>(d_bases, kChunkBases, d_table);

    // Overlap parsing of the second chunk with the GPU work on the first one.
    std::fill(chunk.begin(), chunk.end(), uint8_t(0));  // EXPECT: missing_sync
    parse_next_chunk(chunk, 2);

    CHECK_CUDA(cudaStreamSynchronize(stream));
    CHECK_CUDA(cudaMemcpyAsync(d_bases, chunk.data(), chunk.size(),
                               cudaMemcpyHostToDevice, stream));
    count_kmers<<<(kChunkBases + 255) / 256, 256, 0, stream>>>(d_bases, kChunkBases, d_table);
    CHECK_CUDA(cudaStreamSynchronize(stream));

    CHECK_CUDA(cudaMemcpy(histogram.data(), d_table, kTableSize * sizeof(unsigned int),
                          cudaMemcpyDeviceToHost));
    const auto peak = *std::max_element(histogram.begin(), histogram.end());
    std::printf("most frequent 15-mer bucket: %u hits\n", peak);

    CHECK_CUDA(cudaHostUnregister(chunk.data()));
    cudaFree(d_table);
    cudaFree(d_bases);
    cudaStreamDestroy(stream);
    return 0;
}

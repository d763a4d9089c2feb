// case: k-mer counter for DNA reads; the download of the count table passes the device buffer as destination and the host vector as source while stating cudaMemcpyDeviceToHost (arguments swapped).
// expect: memcpy_kind_mismatch=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <string>
#include <vector>
#include <algorithm>

#define GPU_CHECK(expr) do { cudaError_t rc = (expr); if (rc != cudaSuccess) { \
    fprintf(stderr, "[kmer] %s (%s:%d)\n", cudaGetErrorString(rc), __FILE__, __LINE__); exit(EXIT_FAILURE); } } while (0)

constexpr int K = 11;
constexpr size_t TABLE = size_t(1) << (2 * K);

__device__ __forceinline__ int base_code(char c)
{
    switch (c) {
        case 'A': case 'a': return 0;
        case 'C': case 'c': return 1;
        case 'G': case 'g': return 2;
        case 'T': case 't': return 3;
        default: return -1;
    }
}

__global__ void count_kmers(const char* __restrict__ seq, size_t len, unsigned int* __restrict__ table)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i + K > len) return;
    uint32_t code = 0;
    for (int k = 0; k < K; ++k) {
        int b = base_code(seq[i + k]);
        if (b < 0) return;                        // N or other IUPAC symbol
        code = (code << 2) | (uint32_t)b;
    }
    atomicAdd(&table[code], 1u);
}

static std::string decode(uint32_t code)
{
    std::string s(K, 'A');
    for (int k = K - 1; k >= 0; --k) { s[k] = "ACGT"[code & 3]; code >>= 2; }
    return s;
}

int main(int argc, char** argv)
{
    size_t len = argc > 1 ? strtoull(argv[1], nullptr, 10) : (size_t)50'000'000;
    std::string genome(len, 'A');
    uint32_t state = 12345u;
    for (auto& c : genome) { state = state * 1664525u + 1013904223u; c = "ACGTN"[(state >> 24) % 5]; }

    char* d_seq;
    unsigned int* d_table;
    GPU_CHECK(cudaMalloc(&d_seq, len));
    GPU_CHECK(cudaMalloc(&d_table, TABLE * sizeof(unsigned int)));
    GPU_CHECK(cudaMemcpy(d_seq, genome.data(), len, cudaMemcpyHostToDevice));
    GPU_CHECK(cudaMemset(d_table, 0, TABLE * sizeof(unsigned int)));

    count_kmers<<<(unsigned)((len + 511) / 512), 512>>>(d_seq, len, d_table);
    GPU_CHECK(cudaGetLastError());

    std::vector<unsigned int> counts(TABLE);
    GPU_CHECK(cudaMemcpy(d_table, counts.data(), TABLE * sizeof(unsigned int),  // EXPECT: memcpy_kind_mismatch
                         cudaMemcpyDeviceToHost));

    std::vector<uint32_t> order(TABLE);
    for (uint32_t i = 0; i < TABLE; ++i) order[i] = i;
    std::partial_sort(order.begin(), order.begin() + 10, order.end(),
                      [&](uint32_t a, uint32_t b) { return counts[a] > counts[b]; });
    for (int r = 0; r < 10; ++r)
        printf("%2d  %s  %u\n", r + 1, decode(order[r]).c_str(), counts[order[r]]);

    GPU_CHECK(cudaFree(d_table));
    GPU_CHECK(cudaFree(d_seq));
    return 0;
}

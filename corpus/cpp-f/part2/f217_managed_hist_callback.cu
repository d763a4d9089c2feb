// case: A k-mer counting tool reports progress from a std::function callback invoked right after launching the counting kernel: the callback reads the kernel's managed output bins (still being written) and a managed run-metadata struct the kernel does not use, both before any synchronization.
// expect: missing_sync=1, managed_concurrent_access=1
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdlib>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#define CK(call) do { cudaError_t e = (call); if (e != cudaSuccess) { \
    fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(e)); std::exit(1); } } while (0)

constexpr int K = 8;                  // 4^8 = 65536 bins
constexpr int kBins = 1 << (2 * K);

struct RunInfo {
    char sample[64];
    uint64_t reads;
    uint64_t bases;
};

__device__ __forceinline__ int base2bits(char c) {
    return c == 'A' ? 0 : c == 'C' ? 1 : c == 'G' ? 2 : 3;
}

__global__ void count_kmers(const char* __restrict__ seq, size_t n, unsigned* bins) {
    size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    if (i + K > n) return;
    unsigned code = 0;
    for (int j = 0; j < K; ++j) code = (code << 2) | base2bits(seq[i + j]);
    atomicAdd(&bins[code], 1u);
}

using Progress = std::function<void(const char* stage)>;

int main() {
    const size_t n = size_t(64) << 20;
    std::vector<char> genome(n);
    const char alphabet[4] = {'A', 'C', 'G', 'T'};
    for (size_t i = 0; i < n; ++i) genome[i] = alphabet[(i * 2654435761u >> 13) & 3];

    char* d_seq;
    CK(cudaMalloc(&d_seq, n));
    CK(cudaMemcpy(d_seq, genome.data(), n, cudaMemcpyHostToDevice));

    unsigned* bins;
    RunInfo* info;
    CK(cudaMallocManaged(&bins, kBins * sizeof(unsigned)));
    CK(cudaMallocManaged(&info, sizeof(RunInfo)));
    snprintf(info->sample, sizeof(info->sample), "%s", "chr21_synthetic");
    info->reads = 1;
    info->bases = n;
    CK(cudaMemset(bins, 0, kBins * sizeof(unsigned)));

    Progress report = [&](const char* stage) {
        unsigned long long bases = info->bases;
        unsigned first_bin = bins[0];
        printf("[%s] %llu bases, bin[AAAAAAAA]=%u\n", stage, bases, first_bin);
    };

    count_kmers<<<unsigned((n + 255) / 256), 256>>>(d_seq, n, bins);
    report("launched");
    CK(cudaDeviceSynchronize());
    report("done");

    uint64_t total = 0;
    unsigned max_bin = 0;
    for (int b = 0; b < kBins; ++b) { total += bins[b]; if (bins[b] > bins[max_bin]) max_bin = b; }
    std::string kmer;
    for (int j = K - 1; j >= 0; --j) kmer += alphabet[(max_bin >> (2 * j)) & 3];
    printf("%llu k-mers, most frequent %s\n", (unsigned long long)total, kmer.c_str());

    cudaFree(bins);
    cudaFree(info);
    cudaFree(d_seq);
    return 0;
}

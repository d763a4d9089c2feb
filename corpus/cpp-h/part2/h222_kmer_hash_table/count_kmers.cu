// case: GPU k-mer counter synchronizes correctly, but then prints the top of the table by indexing the cudaMalloc'd count array on the host, and its table destroy helper (kmer_table.h) releases the device key array with cudaFreeHost.
// expect: host_deref_device_ptr=1, mismatched_free=1
#include "kmer_table.h"
#include <string>
#include <vector>

__device__ __forceinline__ uint64_t mix64(uint64_t k) {
    k ^= k >> 33; k *= 0xff51afd7ed558ccdull; k ^= k >> 33; k *= 0xc4ceb9fe1a85ec53ull; k ^= k >> 33;
    return k;
}

__global__ void insert_kmers(const char* seq, size_t len, int k, uint64_t* keys, uint32_t* counts, size_t cap) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i + k > len) return;
    uint64_t code = 0;
    for (int j = 0; j < k; ++j) {
        char c = seq[i + j];
        code = (code << 2) | (c == 'A' ? 0 : c == 'C' ? 1 : c == 'G' ? 2 : 3);
    }
    size_t slot = mix64(code) % cap;
    for (size_t probe = 0; probe < cap; ++probe, slot = (slot + 1) % cap) {
        unsigned long long prev = atomicCAS((unsigned long long*)&keys[slot], KMER_EMPTY, (unsigned long long)code);
        if (prev == KMER_EMPTY || prev == code) { atomicAdd(&counts[slot], 1u); return; }
    }
}

int main() {
    std::string genome;
    for (int i = 0; i < 1000000; ++i) genome.push_back("ACGT"[(i * i + 7 * i) % 4]);
    cudaStream_t s;
    cudaStreamCreate(&s);

    char* d_seq = nullptr;
    cudaMalloc(&d_seq, genome.size());
    cudaMemcpy(d_seq, genome.data(), genome.size(), cudaMemcpyHostToDevice);

    KmerTable table;
    kmer_table_create(table, 1 << 21, s);
    const int k = 21;
    insert_kmers<<<unsigned((genome.size() + 255) / 256), 256, 0, s>>>(
        d_seq, genome.size(), k, table.d_keys, table.d_counts, table.capacity);
    cudaStreamSynchronize(s);

    uint32_t best = 0;
    size_t best_slot = 0;
    for (size_t i = 0; i < table.capacity; ++i) {
        if (table.d_counts[i] > best) { best = table.d_counts[i]; best_slot = i; }
    }
    printf("most frequent %d-mer seen %u times (slot %zu)\n", k, best, best_slot);

    kmer_table_destroy(table);
    cudaFree(d_seq);
    cudaStreamDestroy(s);
    return 0;
}

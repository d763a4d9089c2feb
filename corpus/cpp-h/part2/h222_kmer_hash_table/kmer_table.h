#pragma once
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>

#define KMER_EMPTY 0xffffffffffffffffull

// Open-addressing k-mer count table living entirely in device memory.
struct KmerTable {
    uint64_t* d_keys = nullptr;
    uint32_t* d_counts = nullptr;
    size_t capacity = 0;
};

inline void kmer_table_create(KmerTable& t, size_t capacity, cudaStream_t s) {
    t.capacity = capacity;
    cudaMalloc(&t.d_keys, capacity * sizeof(uint64_t));
    cudaMalloc(&t.d_counts, capacity * sizeof(uint32_t));
    cudaMemsetAsync(t.d_keys, 0xff, capacity * sizeof(uint64_t), s);
    cudaMemsetAsync(t.d_counts, 0, capacity * sizeof(uint32_t), s);
}

inline void kmer_table_destroy(KmerTable& t) {
    cudaFreeHost(t.d_keys);
    cudaFree(t.d_counts);
    t.d_keys = nullptr;
    t.d_counts = nullptr;
}

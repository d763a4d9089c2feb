#pragma once
// Open-addressing hash table on the GPU (linear probing) and a pinned lookup batch.
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(x)                                                              \
    do {                                                                           \
        cudaError_t e_ = (x);                                                      \
        if (e_ != cudaSuccess) {                                                   \
            std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__,                 \
                         cudaGetErrorString(e_));                                  \
            std::exit(EXIT_FAILURE);                                               \
        }                                                                          \
    } while (0)

constexpr unsigned long long kEmptyKey = ~0ull;
constexpr uint32_t kNotFound = 0xFFFFFFFFu;

__device__ __forceinline__ uint32_t hash64(unsigned long long k) {
    k ^= k >> 33; k *= 0xff51afd7ed558ccdull; k ^= k >> 33;
    return uint32_t(k);
}

__global__ void table_insert(unsigned long long* keys, uint32_t* vals, uint32_t cap,
                             const unsigned long long* in_keys, const uint32_t* in_vals, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned long long k = in_keys[i];
    for (uint32_t slot = hash64(k) & (cap - 1);; slot = (slot + 1) & (cap - 1)) {
        unsigned long long prev = atomicCAS(&keys[slot], kEmptyKey, k);
        if (prev == kEmptyKey || prev == k) { vals[slot] = in_vals[i]; return; }
    }
}

__global__ void table_lookup(const unsigned long long* keys, const uint32_t* vals, uint32_t cap,
                             const unsigned long long* q, uint32_t* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned long long k = q[i];
    uint32_t result = kNotFound;
    for (uint32_t slot = hash64(k) & (cap - 1), probes = 0; probes < cap; slot = (slot + 1) & (cap - 1), ++probes) {
        unsigned long long s = keys[slot];
        if (s == k) { result = vals[slot]; break; }
        if (s == kEmptyKey) break;
    }
    out[i] = result;
}

struct DeviceHashTable {
    unsigned long long* d_keys = nullptr;
    uint32_t* d_vals = nullptr;
    uint32_t capacity = 0;  // power of two
};

struct LookupBatch {
    int size = 0;
    unsigned long long* h_queries = nullptr;  // pinned
    uint32_t* h_results = nullptr;            // pinned
    unsigned long long* d_queries = nullptr;
    uint32_t* d_results = nullptr;
};

inline LookupBatch make_batch(int size) {
    LookupBatch b;
    b.size = size;
    CUDA_CHECK(cudaMallocHost(&b.h_queries, size * sizeof(unsigned long long)));
    CUDA_CHECK(cudaMallocHost(&b.h_results, size * sizeof(uint32_t)));
    CUDA_CHECK(cudaMalloc(&b.d_queries, size * sizeof(unsigned long long)));
    CUDA_CHECK(cudaMalloc(&b.d_results, size * sizeof(uint32_t)));
    return b;
}

inline void free_batch(LookupBatch& b) {
    CUDA_CHECK(cudaFree(b.d_results));
    CUDA_CHECK(cudaFree(b.d_queries));
    CUDA_CHECK(cudaFreeHost(b.h_results));
    CUDA_CHECK(cudaFreeHost(b.h_queries));
}

// Enqueues upload, probe and download; the caller synchronizes `stream`.
inline void enqueue_lookup(const DeviceHashTable& t, LookupBatch& b, cudaStream_t stream) {
    CUDA_CHECK(cudaMemcpyAsync(b.d_queries, b.h_queries, b.size * sizeof(unsigned long long),
                               cudaMemcpyHostToDevice, stream));
    table_lookup<<<(b.size + 255) / 256, 256, 0, stream>>>(t.d_keys, t.d_vals, t.capacity,
                                                           b.d_queries, b.d_results, b.size);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpyAsync(b.h_results, b.d_results, b.size * sizeof(uint32_t),
                               cudaMemcpyDeviceToHost, stream));
}

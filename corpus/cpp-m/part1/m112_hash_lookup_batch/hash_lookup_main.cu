// case: A GPU key-value store builds a hash table, then serves a batch of lookups through the header's enqueue_lookup (async upload, probe kernel, async download into pinned results) and counts the hits from the pinned results before synchronizing the stream (missing_sync at the hit count).
// expect: missing_sync=1
#include "gpu_hash.cuh"
#include <vector>

static DeviceHashTable build_table(const std::vector<unsigned long long>& keys,
                                   const std::vector<uint32_t>& vals, uint32_t capacity) {
    DeviceHashTable t;
    t.capacity = capacity;
    CUDA_CHECK(cudaMalloc(&t.d_keys, capacity * sizeof(unsigned long long)));
    CUDA_CHECK(cudaMalloc(&t.d_vals, capacity * sizeof(uint32_t)));
    CUDA_CHECK(cudaMemset(t.d_keys, 0xFF, capacity * sizeof(unsigned long long)));

    unsigned long long* d_in_keys = nullptr;
    uint32_t* d_in_vals = nullptr;
    const int n = int(keys.size());
    CUDA_CHECK(cudaMalloc(&d_in_keys, n * sizeof(unsigned long long)));
    CUDA_CHECK(cudaMalloc(&d_in_vals, n * sizeof(uint32_t)));
    CUDA_CHECK(cudaMemcpy(d_in_keys, keys.data(), n * sizeof(unsigned long long), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_in_vals, vals.data(), n * sizeof(uint32_t), cudaMemcpyHostToDevice));
    table_insert<<<(n + 255) / 256, 256>>>(t.d_keys, t.d_vals, capacity, d_in_keys, d_in_vals, n);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaFree(d_in_keys));
    CUDA_CHECK(cudaFree(d_in_vals));
    return t;
}

int main() {
    const int n_keys = 1 << 20;
    std::vector<unsigned long long> keys(n_keys);
    std::vector<uint32_t> vals(n_keys);
    for (int i = 0; i < n_keys; ++i) {
        keys[i] = 0x9E3779B97F4A7C15ull * (unsigned long long)(i + 1);
        vals[i] = uint32_t(i);
    }
    DeviceHashTable table = build_table(keys, vals, 1u << 21);

    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    LookupBatch batch = make_batch(1 << 16);
    for (int i = 0; i < batch.size; ++i)
        batch.h_queries[i] = 0x9E3779B97F4A7C15ull * (unsigned long long)(2 * i + 1);

    enqueue_lookup(table, batch, stream);
    int hits = 0;
    for (int i = 0; i < batch.size; ++i)
        if (batch.h_results[i] != kNotFound) ++hits;  // EXPECT: missing_sync
    CUDA_CHECK(cudaStreamSynchronize(stream));
    std::printf("%d of %d queries found\n", hits, batch.size);

    free_batch(batch);
    CUDA_CHECK(cudaStreamDestroy(stream));
    CUDA_CHECK(cudaFree(table.d_keys));
    CUDA_CHECK(cudaFree(table.d_vals));
    return 0;
}

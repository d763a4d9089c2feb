// case: a GPU key-value store page-locks its key slab with cudaHostRegister, but the value slab only under KV_PIN_VALUE_SLAB (never defined), while the destructor unregisters both slabs
// expect: mismatched_free=1
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

// Build options (set by the build system when wanted):
//   KV_PIN_VALUE_SLAB  page-lock the value slab as well and upload it asynchronously

#define KV_CHECK(x)                                                              \
    do {                                                                         \
        cudaError_t e_ = (x);                                                    \
        if (e_ != cudaSuccess) {                                                 \
            std::fprintf(stderr, "kvstore: %s: %s\n", #x, cudaGetErrorString(e_)); \
            std::abort();                                                        \
        }                                                                        \
    } while (0)

__global__ void build_index(const uint64_t* keys, uint32_t* slots, int n, uint32_t mask) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    uint32_t h = (uint32_t)(keys[i] * 0x9E3779B97F4A7C15ull >> 32) & mask;
    while (atomicCAS(&slots[h], 0xFFFFFFFFu, (uint32_t)i) != 0xFFFFFFFFu) h = (h + 1) & mask;
}

class KvSlabStore {
public:
    KvSlabStore(size_t capacity, size_t value_bytes)
        : cap_(capacity), vbytes_(value_bytes) {
        keys_ = static_cast<uint64_t*>(std::malloc(cap_ * sizeof(uint64_t)));
        vals_ = static_cast<uint8_t*>(std::malloc(cap_ * vbytes_));
        KV_CHECK(cudaHostRegister(keys_, cap_ * sizeof(uint64_t), cudaHostRegisterDefault));
#ifdef KV_PIN_VALUE_SLAB
        KV_CHECK(cudaHostRegister(vals_, cap_ * vbytes_, cudaHostRegisterDefault));
#endif
        KV_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
        KV_CHECK(cudaMalloc(&d_keys_, cap_ * sizeof(uint64_t)));
        KV_CHECK(cudaMalloc(&d_vals_, cap_ * vbytes_));
        slot_count_ = 1;
        while (slot_count_ < 2 * cap_) slot_count_ <<= 1;
        KV_CHECK(cudaMalloc(&d_slots_, slot_count_ * sizeof(uint32_t)));
    }

    ~KvSlabStore() {
        cudaStreamSynchronize(stream_);
        cudaFree(d_slots_);
        cudaFree(d_vals_);
        cudaFree(d_keys_);
        cudaStreamDestroy(stream_);
        cudaHostUnregister(keys_);
        cudaHostUnregister(vals_); // EXPECT: mismatched_free
        std::free(vals_);
        std::free(keys_);
    }

    void put(size_t i, uint64_t key, const void* value) {
        keys_[i] = key;
        std::memcpy(vals_ + i * vbytes_, value, vbytes_);
        n_ = i + 1 > n_ ? i + 1 : n_;
    }

    void publish() {
        KV_CHECK(cudaMemcpyAsync(d_keys_, keys_, n_ * sizeof(uint64_t), cudaMemcpyHostToDevice, stream_));
#ifdef KV_PIN_VALUE_SLAB
        KV_CHECK(cudaMemcpyAsync(d_vals_, vals_, n_ * vbytes_, cudaMemcpyHostToDevice, stream_));
#else
        KV_CHECK(cudaStreamSynchronize(stream_));
        KV_CHECK(cudaMemcpy(d_vals_, vals_, n_ * vbytes_, cudaMemcpyHostToDevice));
#endif
        KV_CHECK(cudaMemsetAsync(d_slots_, 0xFF, slot_count_ * sizeof(uint32_t), stream_));
        build_index<<<(int)((n_ + 255) / 256), 256, 0, stream_>>>(d_keys_, d_slots_, (int)n_,
                                                                 (uint32_t)(slot_count_ - 1));
        KV_CHECK(cudaStreamSynchronize(stream_));
    }

private:
    size_t cap_, vbytes_, n_ = 0, slot_count_ = 0;
    uint64_t* keys_ = nullptr;
    uint8_t* vals_ = nullptr;
    uint64_t* d_keys_ = nullptr;
    uint8_t* d_vals_ = nullptr;
    uint32_t* d_slots_ = nullptr;
    cudaStream_t stream_ = nullptr;
};

int main() {
    KvSlabStore store(1 << 18, 128);
    char value[128];
    for (size_t i = 0; i < (1 << 18); ++i) {
        std::snprintf(value, sizeof(value), "session-%zu", i);
        store.put(i, 0xC0FFEE00ull + i * 31, value);
    }
    store.publish();
    std::puts("kv store published");
    return 0;
}

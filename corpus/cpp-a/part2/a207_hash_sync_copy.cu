// case: GPU open-addressing hash table built by kernels on the legacy default stream, then read back with blocking cudaMemcpy into a std::vector: near-miss, the copy is synchronous and ordered after the kernels, and only host copies are read
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <vector>

#define CUDA_CHECK(x)                                                          \
    do {                                                                       \
        cudaError_t s_ = (x);                                                  \
        if (s_ != cudaSuccess) {                                               \
            std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(s_));       \
            std::exit(1);                                                      \
        }                                                                      \
    } while (0)

static constexpr uint32_t kEmpty = 0xffffffffu;

struct Slot {
    uint32_t key;
    uint32_t value;
};

__device__ __forceinline__ uint32_t murmur_mix(uint32_t k) {
    k ^= k >> 16; k *= 0x85ebca6bu; k ^= k >> 13; k *= 0xc2b2ae35u; k ^= k >> 16;
    return k;
}

__global__ void init_table(Slot* slots, uint32_t capacity) {
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < capacity) { slots[i].key = kEmpty; slots[i].value = 0; }
}

__global__ void insert_keys(Slot* slots, uint32_t capacity, const uint32_t* keys, uint32_t n) {
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    uint32_t k = keys[i];
    uint32_t h = murmur_mix(k) & (capacity - 1);
    while (true) {
        uint32_t prev = atomicCAS(&slots[h].key, kEmpty, k);
        if (prev == kEmpty || prev == k) { atomicAdd(&slots[h].value, 1u); return; }
        h = (h + 1) & (capacity - 1);
    }
}

class DeviceHashTable {
public:
    explicit DeviceHashTable(uint32_t capacity) : capacity_(capacity) {
        CUDA_CHECK(cudaMalloc(&d_slots_, sizeof(Slot) * capacity_));
        init_table<<<(capacity_ + 255) / 256, 256>>>(d_slots_, capacity_);
    }
    ~DeviceHashTable() { cudaFree(d_slots_); }

    void insert(const std::vector<uint32_t>& keys) {
        uint32_t* d_keys = nullptr;
        CUDA_CHECK(cudaMalloc(&d_keys, keys.size() * sizeof(uint32_t)));
        CUDA_CHECK(cudaMemcpy(d_keys, keys.data(), keys.size() * sizeof(uint32_t), cudaMemcpyHostToDevice));
        insert_keys<<<(uint32_t)((keys.size() + 255) / 256), 256>>>(d_slots_, capacity_, d_keys, (uint32_t)keys.size());
        CUDA_CHECK(cudaDeviceSynchronize());  // the keys must outlive the insert kernel
        CUDA_CHECK(cudaFree(d_keys));
    }

    std::vector<Slot> snapshot() const {
        std::vector<Slot> host(capacity_);
        CUDA_CHECK(cudaMemcpy(host.data(), d_slots_, sizeof(Slot) * capacity_, cudaMemcpyDeviceToHost));
        return host;
    }

private:
    uint32_t capacity_;
    Slot* d_slots_ = nullptr;
};

int main() {
    DeviceHashTable table(1u << 20);
    std::vector<uint32_t> keys(1u << 19);
    for (size_t i = 0; i < keys.size(); ++i) keys[i] = static_cast<uint32_t>((i * 7919u) % 300000u);
    table.insert(keys);

    std::vector<Slot> snap = table.snapshot();
    size_t used = 0, max_count = 0;
    for (const Slot& s : snap) {
        if (s.key == kEmpty) continue;
        ++used;
        if (s.value > max_count) max_count = s.value;
    }
    std::printf("load factor %.3f, max multiplicity %zu\n", double(used) / snap.size(), max_count);
    return 0;
}

// case: GPU hash-join probe: the match counter lives in cudaMalloc memory and, after cudaDeviceSynchronize, the host reads it by dereferencing the device pointer held in the join state
// expect: host_deref_device_ptr=1
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(call)                                                     \
    do {                                                                     \
        cudaError_t err_ = (call);                                           \
        if (err_ != cudaSuccess) {                                           \
            std::fprintf(stderr, "CUDA error %s at %s:%d\n",                 \
                         cudaGetErrorString(err_), __FILE__, __LINE__);      \
            std::exit(EXIT_FAILURE);                                         \
        }                                                                    \
    } while (0)

using key_t32 = uint32_t;
constexpr key_t32 kEmpty = 0xffffffffu;

__device__ __forceinline__ uint32_t hash32(uint32_t k) {
    k ^= k >> 16; k *= 0x7feb352d; k ^= k >> 15; k *= 0x846ca68b; k ^= k >> 16;
    return k;
}

__global__ void build(const key_t32* keys, int n, key_t32* table, uint32_t mask) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    uint32_t slot = hash32(keys[i]) & mask;
    while (atomicCAS(&table[slot], kEmpty, keys[i]) != kEmpty) slot = (slot + 1) & mask;
}

__global__ void probe(const key_t32* keys, int n, const key_t32* table, uint32_t mask, int* count) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    uint32_t slot = hash32(keys[i]) & mask;
    while (table[slot] != kEmpty) {
        if (table[slot] == keys[i]) { atomicAdd(count, 1); return; }
        slot = (slot + 1) & mask;
    }
}

struct JoinState {
    key_t32* d_build = nullptr;
    key_t32* d_probe = nullptr;
    key_t32* d_table = nullptr;
    int* d_count = nullptr;
    uint32_t mask = 0;
};

static void join_init(JoinState& st, const std::vector<key_t32>& build_keys, const std::vector<key_t32>& probe_keys) {
    size_t slots = 1;
    while (slots < build_keys.size() * 2) slots <<= 1;
    st.mask = static_cast<uint32_t>(slots - 1);
    CUDA_CHECK(cudaMalloc(&st.d_build, build_keys.size() * sizeof(key_t32)));
    CUDA_CHECK(cudaMalloc(&st.d_probe, probe_keys.size() * sizeof(key_t32)));
    CUDA_CHECK(cudaMalloc(&st.d_table, slots * sizeof(key_t32)));
    CUDA_CHECK(cudaMalloc(&st.d_count, sizeof(int)));
    CUDA_CHECK(cudaMemcpy(st.d_build, build_keys.data(), build_keys.size() * sizeof(key_t32), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(st.d_probe, probe_keys.data(), probe_keys.size() * sizeof(key_t32), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(st.d_table, 0xff, slots * sizeof(key_t32)));
    CUDA_CHECK(cudaMemset(st.d_count, 0, sizeof(int)));
}

static void join_free(JoinState& st) {
    cudaFree(st.d_count);
    cudaFree(st.d_table);
    cudaFree(st.d_probe);
    cudaFree(st.d_build);
}

int main() {
    std::vector<key_t32> build_keys(1 << 20), probe_keys(1 << 22);
    for (size_t i = 0; i < build_keys.size(); ++i) build_keys[i] = static_cast<key_t32>(i * 3);
    for (size_t i = 0; i < probe_keys.size(); ++i) probe_keys[i] = static_cast<key_t32>(i);

    JoinState st;
    join_init(st, build_keys, probe_keys);
    int nb = static_cast<int>(build_keys.size());
    int np = static_cast<int>(probe_keys.size());
    build<<<(nb + 255) / 256, 256>>>(st.d_build, nb, st.d_table, st.mask);
    probe<<<(np + 255) / 256, 256>>>(st.d_probe, np, st.d_table, st.mask, st.d_count);
    CUDA_CHECK(cudaDeviceSynchronize());

    int matches = *st.d_count; // EXPECT: host_deref_device_ptr
    std::printf("join matched %d rows\n", matches);
    join_free(st);
    return 0;
}

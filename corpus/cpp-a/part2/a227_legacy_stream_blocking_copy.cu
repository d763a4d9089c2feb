// case: bloom-filter builder launches its build kernel on a cudaStreamNonBlocking stream, then reads the filter back with a plain blocking cudaMemcpy, which runs on the legacy default stream and does not wait for non-blocking streams: the copy can read the filter while the kernel still writes it
// expect: missing_sync=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <vector>

#define CUDA_CHECK(x)                                                          \
    do {                                                                       \
        cudaError_t e_ = (x);                                                  \
        if (e_ != cudaSuccess) {                                               \
            std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_));       \
            std::exit(1);                                                      \
        }                                                                      \
    } while (0)

__device__ __forceinline__ uint32_t hash_k(uint64_t key, uint32_t seed) {
    uint64_t h = key * 0x9E3779B97F4A7C15ull + seed;
    h ^= h >> 29; h *= 0xBF58476D1CE4E5B9ull; h ^= h >> 32;
    return (uint32_t)h;
}

__global__ void bloom_build(const uint64_t* keys, size_t n, uint32_t* bits, uint32_t nbits, int k) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= n) return;
    for (int j = 0; j < k; ++j) {
        uint32_t b = hash_k(keys[i], j) % nbits;
        atomicOr(&bits[b >> 5], 1u << (b & 31));
    }
}

class BloomBuilder {
public:
    BloomBuilder(uint32_t nbits, int k) : nbits_(nbits), k_(k) {
        CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
        CUDA_CHECK(cudaMalloc(&d_bits_, words() * sizeof(uint32_t)));
    }
    ~BloomBuilder() {
        cudaStreamSynchronize(stream_);
        cudaFree(d_bits_);
        cudaStreamDestroy(stream_);
    }
    uint32_t words() const { return (nbits_ + 31) / 32; }

    std::vector<uint32_t> build(const uint64_t* d_keys, size_t n) {
        CUDA_CHECK(cudaMemsetAsync(d_bits_, 0, words() * sizeof(uint32_t), stream_));
        bloom_build<<<(unsigned)((n + 255) / 256), 256, 0, stream_>>>(d_keys, n, d_bits_, nbits_, k_);
        CUDA_CHECK(cudaGetLastError());
        std::vector<uint32_t> filter(words());
        CUDA_CHECK(cudaMemcpy(filter.data(), d_bits_, words() * sizeof(uint32_t), cudaMemcpyDeviceToHost)); // EXPECT: missing_sync
        return filter;
    }

private:
    uint32_t nbits_;
    int k_;
    cudaStream_t stream_{};
    uint32_t* d_bits_ = nullptr;
};

int main() {
    const size_t n = 1u << 22;
    uint64_t* d_keys = nullptr;
    CUDA_CHECK(cudaMalloc(&d_keys, n * sizeof(uint64_t)));
    CUDA_CHECK(cudaMemset(d_keys, 0x11, n * sizeof(uint64_t)));
    CUDA_CHECK(cudaDeviceSynchronize());

    BloomBuilder bb(1u << 26, 4);
    std::vector<uint32_t> filter = bb.build(d_keys, n);
    size_t set = 0;
    for (uint32_t w : filter) set += __builtin_popcount(w);
    std::printf("bits set: %zu of %u\n", set, 1u << 26);
    CUDA_CHECK(cudaFree(d_keys));
    return 0;
}

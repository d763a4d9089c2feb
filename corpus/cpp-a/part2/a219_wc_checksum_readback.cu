// case: GPU key-hashing service stages keys in a write-combined cudaHostAlloc buffer (good for upload) but then computes a CRC over that same staging buffer on the host to log it, a host read of write-combined memory
// expect: write_combined_host_read=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#define CUDA_CHECK(x)                                                          \
    do {                                                                       \
        cudaError_t e_ = (x);                                                  \
        if (e_ != cudaSuccess) {                                               \
            std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_));       \
            std::exit(1);                                                      \
        }                                                                      \
    } while (0)

#define STAGING_FLAGS (cudaHostAllocWriteCombined | cudaHostAllocPortable)

__global__ void fnv1a_keys(const uint8_t* keys, const uint32_t* offsets, uint32_t n, uint64_t* hashes) {
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    uint64_t h = 1469598103934665603ull;
    for (uint32_t b = offsets[i]; b < offsets[i + 1]; ++b) { h ^= keys[b]; h *= 1099511628211ull; }
    hashes[i] = h;
}

class KeyHasher {
public:
    KeyHasher(size_t max_key_bytes, uint32_t max_keys) : max_bytes_(max_key_bytes), max_keys_(max_keys) {
        CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
        CUDA_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&h_keys_), max_key_bytes, STAGING_FLAGS));
        CUDA_CHECK(cudaMallocHost(&h_offsets_, sizeof(uint32_t) * (max_keys + 1)));
        CUDA_CHECK(cudaMallocHost(&h_hashes_, sizeof(uint64_t) * max_keys));
        CUDA_CHECK(cudaMalloc(&d_keys_, max_key_bytes));
        CUDA_CHECK(cudaMalloc(&d_offsets_, sizeof(uint32_t) * (max_keys + 1)));
        CUDA_CHECK(cudaMalloc(&d_hashes_, sizeof(uint64_t) * max_keys));
    }
    ~KeyHasher() {
        cudaStreamSynchronize(stream_);
        cudaFreeHost(h_keys_);
        cudaFreeHost(h_offsets_);
        cudaFreeHost(h_hashes_);
        cudaFree(d_keys_);
        cudaFree(d_offsets_);
        cudaFree(d_hashes_);
        cudaStreamDestroy(stream_);
    }

    const uint64_t* hash(const std::vector<std::string>& keys) {
        uint32_t n = 0;
        size_t used = 0;
        h_offsets_[0] = 0;
        for (const std::string& k : keys) {
            if (n == max_keys_ || used + k.size() > max_bytes_) break;
            std::memcpy(h_keys_ + used, k.data(), k.size());  // streaming writes: what WC is for
            used += k.size();
            h_offsets_[++n] = static_cast<uint32_t>(used);
        }
        CUDA_CHECK(cudaMemcpyAsync(d_keys_, h_keys_, used, cudaMemcpyHostToDevice, stream_));
        CUDA_CHECK(cudaMemcpyAsync(d_offsets_, h_offsets_, sizeof(uint32_t) * (n + 1), cudaMemcpyHostToDevice, stream_));
        fnv1a_keys<<<(n + 255) / 256, 256, 0, stream_>>>(d_keys_, d_offsets_, n, d_hashes_);
        CUDA_CHECK(cudaMemcpyAsync(h_hashes_, d_hashes_, sizeof(uint64_t) * n, cudaMemcpyDeviceToHost, stream_));
        CUDA_CHECK(cudaStreamSynchronize(stream_));

        uint32_t crc = 0xffffffffu;
        for (size_t i = 0; i < used; ++i) {
            crc ^= this->h_keys_[i]; // EXPECT: write_combined_host_read
            for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
        }
        crc = ~crc;
        std::printf("hashed %u keys (%zu bytes, batch crc %08x)\n", n, used, crc);
        last_n_ = n;
        return h_hashes_;
    }

private:
    size_t max_bytes_;
    uint32_t max_keys_;
    uint32_t last_n_ = 0;
    cudaStream_t stream_{};
    uint8_t* h_keys_ = nullptr;
    uint32_t* h_offsets_ = nullptr;
    uint64_t* h_hashes_ = nullptr;
    uint8_t* d_keys_ = nullptr;
    uint32_t* d_offsets_ = nullptr;
    uint64_t* d_hashes_ = nullptr;
};

int main() {
    KeyHasher hasher(64u << 20, 1u << 20);
    std::vector<std::string> keys;
    for (int i = 0; i < 500000; ++i) keys.push_back("user:" + std::to_string(i * 7));
    const uint64_t* h = hasher.hash(keys);
    std::printf("h[0] = %016llx\n", (unsigned long long)h[0]);
    return 0;
}

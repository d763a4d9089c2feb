// case: pinned block cache hands out std::shared_ptr blocks from cudaMallocHost whose deleter calls cudaFree, and its shutdown cudaHostUnregisters a metadata block that cudaMallocHost made (never registered)
// expect: mismatched_free=2
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#define CUDA_CHECK(x)                                                          \
    do {                                                                       \
        cudaError_t s_ = (x);                                                  \
        if (s_ != cudaSuccess) {                                               \
            std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(s_));       \
            std::abort();                                                      \
        }                                                                      \
    } while (0)

struct BlockMeta {
    uint64_t generation;
    uint32_t blocks_out;
    uint32_t blocks_cached;
};

class PinnedBlockCache {
public:
    explicit PinnedBlockCache(size_t block_bytes) : block_bytes_(block_bytes) {
        CUDA_CHECK(cudaMallocHost(reinterpret_cast<void**>(&meta_), sizeof(BlockMeta)));
        meta_->generation = 1;
        meta_->blocks_out = 0;
        meta_->blocks_cached = 0;
    }

    std::shared_ptr<uint8_t> acquire() {
        std::lock_guard<std::mutex> lock(mu_);
        void* raw = nullptr;
        CUDA_CHECK(cudaMallocHost(&raw, block_bytes_));
        meta_->blocks_out++;
        return std::shared_ptr<uint8_t>(static_cast<uint8_t*>(raw), [](uint8_t* p) {
            cudaFree(p); // EXPECT: mismatched_free
        });
    }

    void shutdown() {
        std::lock_guard<std::mutex> lock(mu_);
        cudaHostUnregister(meta_); // EXPECT: mismatched_free
        cudaFreeHost(meta_);
        meta_ = nullptr;
    }

    size_t block_bytes() const { return block_bytes_; }

private:
    size_t block_bytes_;
    BlockMeta* meta_ = nullptr;
    std::mutex mu_;
};

__global__ void checksum(const uint8_t* data, size_t n, unsigned int* out) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(out, (unsigned int)data[i]);
}

int main() {
    PinnedBlockCache cache(4u << 20);
    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreate(&s));
    uint8_t* d_buf = nullptr;
    unsigned int* d_sum = nullptr;
    CUDA_CHECK(cudaMalloc(&d_buf, cache.block_bytes()));
    CUDA_CHECK(cudaMalloc(&d_sum, sizeof(unsigned int)));
    {
        std::shared_ptr<uint8_t> blk = cache.acquire();
        for (size_t i = 0; i < cache.block_bytes(); ++i) blk.get()[i] = uint8_t(i);
        CUDA_CHECK(cudaMemcpyAsync(d_buf, blk.get(), cache.block_bytes(), cudaMemcpyHostToDevice, s));
        CUDA_CHECK(cudaMemsetAsync(d_sum, 0, sizeof(unsigned int), s));
        checksum<<<(unsigned)((cache.block_bytes() + 255) / 256), 256, 0, s>>>(d_buf, cache.block_bytes(), d_sum);
        CUDA_CHECK(cudaStreamSynchronize(s));
    }  // blk released here
    unsigned int sum = 0;
    CUDA_CHECK(cudaMemcpy(&sum, d_sum, sizeof(sum), cudaMemcpyDeviceToHost));
    std::printf("checksum %u\n", sum);
    cache.shutdown();
    cudaFree(d_buf);
    cudaFree(d_sum);
    cudaStreamDestroy(s);
    return 0;
}

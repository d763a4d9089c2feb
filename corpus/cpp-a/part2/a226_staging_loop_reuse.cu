// case: bulk loader streams a large host column to the GPU through one pinned staging chunk, refilling it with memcpy on every iteration while the previous chunk's cudaMemcpyAsync may still be reading it (the stream is synchronized only after the loop)
// expect: missing_sync=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cstdint>
#include <vector>
#include <algorithm>

#define CUDA_CHECK(x)                                                          \
    do {                                                                       \
        cudaError_t e_ = (x);                                                  \
        if (e_ != cudaSuccess) {                                               \
            std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_));       \
            std::exit(1);                                                      \
        }                                                                      \
    } while (0)

static constexpr size_t kChunkBytes = 8u << 20;

class BulkLoader {
public:
    explicit BulkLoader(cudaStream_t stream) : stream_(stream) {
        CUDA_CHECK(cudaMallocHost(&staging_, kChunkBytes));
    }
    ~BulkLoader() {
        cudaStreamSynchronize(stream_);
        cudaFreeHost(staging_);
    }

    void load(uint8_t* d_dst, const uint8_t* src, size_t bytes) {
        for (size_t off = 0; off < bytes; off += kChunkBytes) {
            const size_t len = std::min(kChunkBytes, bytes - off);
            std::memcpy(staging_, src + off, len); // EXPECT: missing_sync
            CUDA_CHECK(cudaMemcpyAsync(d_dst + off, staging_, len, cudaMemcpyHostToDevice, stream_));
        }
        CUDA_CHECK(cudaStreamSynchronize(stream_));
    }

private:
    cudaStream_t stream_;
    uint8_t* staging_ = nullptr;
};

int main() {
    const size_t bytes = 256u << 20;
    std::vector<uint8_t> column(bytes);
    for (size_t i = 0; i < bytes; ++i) column[i] = (uint8_t)(i * 131);

    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    uint8_t* d_col = nullptr;
    CUDA_CHECK(cudaMalloc(&d_col, bytes));
    {
        BulkLoader loader(s);
        loader.load(d_col, column.data(), bytes);
    }
    uint8_t last = 0;
    CUDA_CHECK(cudaMemcpy(&last, d_col + bytes - 1, 1, cudaMemcpyDeviceToHost));
    std::printf("last byte %u (expected %u)\n", last, column.back());
    CUDA_CHECK(cudaFree(d_col));
    CUDA_CHECK(cudaStreamDestroy(s));
    return 0;
}

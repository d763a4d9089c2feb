// case: chunked compressor reads the per-chunk compressed sizes from its pinned readback buffer, but only waits for the stream when the caller asked for a blocking call: on the non-blocking path the host reads sizes the async copy may still be writing
// expect: missing_sync=1
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

struct CompressOptions {
    bool blocking = false;
    uint32_t chunk_bytes = 1 << 16;
};

__global__ void delta_encode(const uint32_t* in, uint32_t* out, uint32_t* sizes, uint32_t words_per_chunk) {
    uint32_t c = blockIdx.x;
    const uint32_t* src = in + (size_t)c * words_per_chunk;
    uint32_t* dst = out + (size_t)c * words_per_chunk;
    for (uint32_t i = threadIdx.x; i < words_per_chunk; i += blockDim.x)
        dst[i] = i == 0 ? src[0] : src[i] - src[i - 1];
    if (threadIdx.x == 0) sizes[c] = words_per_chunk * 4 - (src[words_per_chunk - 1] == src[0] ? 4 : 0);
}

class ChunkCompressor {
public:
    ChunkCompressor(size_t max_chunks, uint32_t chunk_bytes) : max_chunks_(max_chunks), chunk_bytes_(chunk_bytes) {
        CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
        CUDA_CHECK(cudaMalloc(&d_in_, max_chunks * chunk_bytes));
        CUDA_CHECK(cudaMalloc(&d_out_, max_chunks * chunk_bytes));
        CUDA_CHECK(cudaMalloc(&d_sizes_, max_chunks * sizeof(uint32_t)));
        CUDA_CHECK(cudaMallocHost(&h_sizes_, max_chunks * sizeof(uint32_t)));
    }
    ~ChunkCompressor() {
        cudaStreamSynchronize(stream_);
        cudaFreeHost(h_sizes_);
        cudaFree(d_in_);
        cudaFree(d_out_);
        cudaFree(d_sizes_);
        cudaStreamDestroy(stream_);
    }

    uint32_t* device_input() { return d_in_; }

    // returns the total compressed size
    uint64_t compress(size_t n_chunks, const CompressOptions& opts) {
        const uint32_t words = opts.chunk_bytes / 4;
        delta_encode<<<(unsigned)n_chunks, 256, 0, stream_>>>(d_in_, d_out_, d_sizes_, words);
        CUDA_CHECK(cudaGetLastError());
        CUDA_CHECK(cudaMemcpyAsync(h_sizes_, d_sizes_, n_chunks * sizeof(uint32_t), cudaMemcpyDeviceToHost, stream_));
        if (opts.blocking) {
            CUDA_CHECK(cudaStreamSynchronize(stream_));
        }
        uint64_t total = 0;
        for (size_t c = 0; c < n_chunks; ++c) {
            total += h_sizes_[c]; // EXPECT: missing_sync
        }
        return total;
    }

private:
    size_t max_chunks_;
    uint32_t chunk_bytes_;
    cudaStream_t stream_{};
    uint32_t* d_in_ = nullptr;
    uint32_t* d_out_ = nullptr;
    uint32_t* d_sizes_ = nullptr;
    uint32_t* h_sizes_ = nullptr;
};

int main(int argc, char** argv) {
    CompressOptions opts;
    opts.blocking = argc > 1;
    ChunkCompressor cc(512, opts.chunk_bytes);
    CUDA_CHECK(cudaMemset(cc.device_input(), 1, 512 * (size_t)opts.chunk_bytes));
    CUDA_CHECK(cudaDeviceSynchronize());  // the compressor's stream is non-blocking
    uint64_t total = cc.compress(512, opts);
    std::printf("compressed size %llu\n", (unsigned long long)total);
    return 0;
}

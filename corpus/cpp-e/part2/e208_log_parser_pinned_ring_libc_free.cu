// case: a streaming log parser's RAII chunk ring allocates its pinned chunks with cudaMallocHost but its destructor releases them with libc free().
// expect: mismatched_free=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#define CUDA_CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_)); std::exit(2); } } while (0)

constexpr size_t kChunkBytes = 4u << 20;
constexpr int kChunks = 2;

__global__ void count_newlines(const char* text, size_t n, unsigned long long* lines) {
    size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    if (i < n && text[i] == '\n') atomicAdd(lines, 1ull);
}

class ChunkRing {
public:
    ChunkRing() {
        for (int i = 0; i < kChunks; ++i) CUDA_CHECK(cudaMallocHost(&chunks_[i], kChunkBytes));
    }
    ~ChunkRing() {
        for (int i = 0; i < kChunks; ++i) free(chunks_[i]); // EXPECT: mismatched_free
    }
    char* chunk(int i) { return chunks_[i % kChunks]; }

private:
    char* chunks_[kChunks] = {};
};

class LogParser {
public:
    LogParser() {
        CUDA_CHECK(cudaStreamCreate(&stream_));
        CUDA_CHECK(cudaMalloc(&d_text_, kChunkBytes));
        CUDA_CHECK(cudaMalloc(&d_lines_, sizeof(unsigned long long)));
        CUDA_CHECK(cudaMemset(d_lines_, 0, sizeof(unsigned long long)));
    }
    ~LogParser() {
        cudaStreamSynchronize(stream_);
        cudaFree(d_lines_);
        cudaFree(d_text_);
        cudaStreamDestroy(stream_);
    }

    void feed(const std::string& text, int seq) {
        char* staging = ring_.chunk(seq);
        size_t n = text.size() < kChunkBytes ? text.size() : kChunkBytes;
        std::memcpy(staging, text.data(), n);
        CUDA_CHECK(cudaMemcpyAsync(d_text_, staging, n, cudaMemcpyHostToDevice, stream_));
        count_newlines<<<unsigned((n + 255) / 256), 256, 0, stream_>>>(d_text_, n, d_lines_);
        CUDA_CHECK(cudaStreamSynchronize(stream_));   // staging and d_text_ free again
    }

    unsigned long long lines() {
        unsigned long long v = 0;
        CUDA_CHECK(cudaMemcpy(&v, d_lines_, sizeof(v), cudaMemcpyDeviceToHost));
        return v;
    }

private:
    ChunkRing ring_;
    cudaStream_t stream_{};
    char* d_text_ = nullptr;
    unsigned long long* d_lines_ = nullptr;
};

int main() {
    LogParser parser;
    std::string block;
    for (int i = 0; i < 1000; ++i) block += "GET /index.html 200 " + std::to_string(i) + "\n";
    for (int seq = 0; seq < 6; ++seq) parser.feed(block, seq);
    std::printf("%llu lines\n", parser.lines());
    return 0;
}

// case: LZ-style block compressor uploads a 48-byte frame header from a stack struct with cudaMemcpyAsync and the payload from pinned memory: near-miss, the pageable copy is a small constant size and the big copies are pinned
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cstring>

#define CUDA_CHECK(x)                                                          \
    do {                                                                       \
        cudaError_t s_ = (x);                                                  \
        if (s_ != cudaSuccess) {                                               \
            std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(s_));       \
            std::exit(1);                                                      \
        }                                                                      \
    } while (0)

struct FrameHeader {
    uint32_t magic;
    uint32_t version;
    uint32_t chunk_bytes;
    uint32_t n_chunks;
    uint64_t raw_bytes;
    uint64_t reserved[3];
};
static_assert(sizeof(FrameHeader) == 48, "header layout");

__global__ void rle_chunks(const FrameHeader* hdr, const uint8_t* in, uint8_t* out, uint32_t* out_sizes) {
    uint32_t c = blockIdx.x;
    if (c >= hdr->n_chunks || threadIdx.x != 0) return;
    const uint8_t* src = in + (size_t)c * hdr->chunk_bytes;
    uint8_t* dst = out + (size_t)c * hdr->chunk_bytes * 2;
    uint32_t w = 0;
    for (uint32_t i = 0; i < hdr->chunk_bytes;) {
        uint8_t v = src[i];
        uint32_t run = 1;
        while (i + run < hdr->chunk_bytes && src[i + run] == v && run < 255) ++run;
        dst[w++] = (uint8_t)run;
        dst[w++] = v;
        i += run;
    }
    out_sizes[c] = w;
}

class BlockCompressor {
public:
    BlockCompressor(uint32_t chunk_bytes, uint32_t max_chunks)
        : chunk_bytes_(chunk_bytes), max_chunks_(max_chunks) {
        CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
        CUDA_CHECK(cudaMalloc(&d_hdr_, sizeof(FrameHeader)));
        CUDA_CHECK(cudaMalloc(&d_in_, (size_t)chunk_bytes * max_chunks));
        CUDA_CHECK(cudaMalloc(&d_out_, (size_t)chunk_bytes * max_chunks * 2));
        CUDA_CHECK(cudaMalloc(&d_sizes_, sizeof(uint32_t) * max_chunks));
        CUDA_CHECK(cudaMallocHost(&h_in_, (size_t)chunk_bytes * max_chunks));
        CUDA_CHECK(cudaMallocHost(&h_sizes_, sizeof(uint32_t) * max_chunks));
    }
    ~BlockCompressor() {
        cudaStreamSynchronize(stream_);
        cudaFreeHost(h_in_);
        cudaFreeHost(h_sizes_);
        cudaFree(d_hdr_);
        cudaFree(d_in_);
        cudaFree(d_out_);
        cudaFree(d_sizes_);
        cudaStreamDestroy(stream_);
    }

    uint8_t* input() { return h_in_; }

    uint64_t compress(uint32_t n_chunks) {
        FrameHeader hdr;
        std::memset(&hdr, 0, sizeof(hdr));
        hdr.magic = 0x524c4531u;
        hdr.version = 2;
        hdr.chunk_bytes = chunk_bytes_;
        hdr.n_chunks = n_chunks;
        hdr.raw_bytes = (uint64_t)chunk_bytes_ * n_chunks;

        CUDA_CHECK(cudaMemcpyAsync(d_hdr_, &hdr, sizeof(FrameHeader), cudaMemcpyHostToDevice, stream_));
        CUDA_CHECK(cudaMemcpyAsync(d_in_, h_in_, hdr.raw_bytes, cudaMemcpyHostToDevice, stream_));
        rle_chunks<<<n_chunks, 32, 0, stream_>>>(d_hdr_, d_in_, d_out_, d_sizes_);
        CUDA_CHECK(cudaMemcpyAsync(h_sizes_, d_sizes_, sizeof(uint32_t) * n_chunks, cudaMemcpyDeviceToHost, stream_));
        CUDA_CHECK(cudaStreamSynchronize(stream_));

        uint64_t total = sizeof(FrameHeader);
        for (uint32_t c = 0; c < n_chunks; ++c) total += h_sizes_[c];
        return total;
    }

private:
    uint32_t chunk_bytes_, max_chunks_;
    cudaStream_t stream_{};
    FrameHeader* d_hdr_ = nullptr;
    uint8_t* d_in_ = nullptr;
    uint8_t* d_out_ = nullptr;
    uint32_t* d_sizes_ = nullptr;
    uint8_t* h_in_ = nullptr;
    uint32_t* h_sizes_ = nullptr;
};

int main() {
    const uint32_t chunk = 64 * 1024, chunks = 256;
    BlockCompressor comp(chunk, chunks);
    for (size_t i = 0; i < (size_t)chunk * chunks; ++i) comp.input()[i] = (uint8_t)((i / 37) & 0xff);
    uint64_t out = comp.compress(chunks);
    std::printf("compressed %u bytes to %llu\n", chunk * chunks, (unsigned long long)out);
    return 0;
}

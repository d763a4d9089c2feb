// case: a block compressor fills a write-combined upload buffer from its factory make_upload_staging<uint8_t>() and then computes the frame's Adler-32 by reading that same buffer on the host before uploading it; the readback buffer from make_readback_staging() is ordinary pinned memory and its reads are fine.
// expect: write_combined_host_read=1
#include "staging.cuh"
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

constexpr size_t kBlock = size_t(1) << 22;
constexpr int kChunk = 4096;
constexpr int kChunks = static_cast<int>(kBlock / kChunk);

// Toy RLE sizing pass: each block of threads measures how small its chunk would get.
__global__ void rle_sizes(const uint8_t* in, uint32_t* sizes) {
    __shared__ uint32_t runs;
    if (threadIdx.x == 0) runs = 0;
    __syncthreads();
    const uint8_t* c = in + static_cast<size_t>(blockIdx.x) * kChunk;
    for (int i = threadIdx.x; i < kChunk; i += blockDim.x)
        if (i == 0 || c[i] != c[i - 1]) atomicAdd(&runs, 1u);
    __syncthreads();
    if (threadIdx.x == 0) sizes[blockIdx.x] = runs * 2;
}

struct FrameHeader { uint32_t raw_bytes; uint32_t adler32; uint32_t packed_bytes; };

static FrameHeader compress_block(const std::vector<uint8_t>& input, cudaStream_t s,
                                  uint8_t* d_in, uint32_t* d_sizes) {
    auto upload = make_upload_staging<uint8_t>(kBlock);
    auto sizes = make_readback_staging<uint32_t>(kChunks);

    std::memcpy(upload.data(), input.data(), kBlock);   // host writes: fine for WC

    uint32_t a = 1, b = 0;
    const uint8_t* raw = upload.data();
    for (size_t i = 0; i < kBlock; ++i) {
        a = (a + raw[i]) % 65521u;  // EXPECT: write_combined_host_read
        b = (b + a) % 65521u;
    }

    cudaMemcpyAsync(d_in, upload.data(), upload.bytes(), cudaMemcpyHostToDevice, s);
    rle_sizes<<<kChunks, 256, 0, s>>>(d_in, d_sizes);
    cudaMemcpyAsync(sizes.data(), d_sizes, sizes.bytes(), cudaMemcpyDeviceToHost, s);
    cudaStreamSynchronize(s);

    uint32_t packed = 0;
    for (size_t c = 0; c < sizes.size(); ++c) packed += sizes.data()[c];
    return FrameHeader{static_cast<uint32_t>(kBlock), (b << 16) | a, packed};
}

int main() {
    std::vector<uint8_t> input(kBlock);
    for (size_t i = 0; i < kBlock; ++i) input[i] = static_cast<uint8_t>((i / 64) & 0xff);

    cudaStream_t s;
    cudaStreamCreate(&s);
    uint8_t* d_in = nullptr;
    uint32_t* d_sizes = nullptr;
    cudaMalloc(&d_in, kBlock);
    cudaMalloc(&d_sizes, kChunks * sizeof(uint32_t));

    FrameHeader h = compress_block(input, s, d_in, d_sizes);
    std::printf("raw %u -> %u bytes, adler32 %08x\n", h.raw_bytes, h.packed_bytes, h.adler32);

    cudaFree(d_sizes);
    cudaFree(d_in);
    cudaStreamDestroy(s);
    return 0;
}

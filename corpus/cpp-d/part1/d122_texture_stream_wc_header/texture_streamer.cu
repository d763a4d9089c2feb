// case: texture streamer whose staging page is allocated write-combined because streaming_config.h defines STAGING_WRITE_COMBINED, and which, because the same header also enables STREAMING_VERIFY_CRC, computes a CRC by reading the whole staging page back on the CPU before each upload.
// expect: write_combined_host_read=1
#include "streaming_config.h"
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(call)                                                          \
    do {                                                                          \
        cudaError_t e_ = (call);                                                  \
        if (e_ != cudaSuccess) {                                                  \
            fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
            std::exit(1);                                                         \
        }                                                                         \
    } while (0)

static uint32_t crc32_step(uint32_t crc, uint8_t byte)
{
    crc ^= byte;
    for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
    return crc;
}

// stands in for reading and decompressing one page of the pak file
static void decode_page(int page_id, uint8_t* dst, size_t bytes)
{
    uint32_t x = 0x811C9DC5u ^ (uint32_t)page_id;
    for (size_t i = 0; i < bytes; ++i) {
        x = (x ^ (uint32_t)i) * 16777619u;
        dst[i] = (uint8_t)(x >> 24);
    }
}

class TextureStreamer {
public:
    TextureStreamer()
    {
        CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
#if STAGING_WRITE_COMBINED
        CUDA_CHECK(cudaHostAlloc((void**)&staging_, STREAMING_PAGE_BYTES, cudaHostAllocWriteCombined));
#else
        CUDA_CHECK(cudaHostAlloc((void**)&staging_, STREAMING_PAGE_BYTES, cudaHostAllocDefault));
#endif
        CUDA_CHECK(cudaMalloc(&d_pool_, (size_t)STREAMING_PAGE_BYTES * STREAMING_PAGES));
    }
    ~TextureStreamer()
    {
        cudaStreamSynchronize(stream_);
        cudaFree(d_pool_);
        cudaFreeHost(staging_);
        cudaStreamDestroy(stream_);
    }

    uint32_t stream_page(int page_id, int slot)
    {
        CUDA_CHECK(cudaStreamSynchronize(stream_)); // the previous upload has read the staging page
        decode_page(page_id, staging_, STREAMING_PAGE_BYTES);
        uint32_t crc = 0xFFFFFFFFu;
#if STREAMING_VERIFY_CRC
        for (size_t i = 0; i < STREAMING_PAGE_BYTES; ++i)
            crc = crc32_step(crc, staging_[i]); // EXPECT: write_combined_host_read
#endif
        CUDA_CHECK(cudaMemcpyAsync(d_pool_ + (size_t)slot * STREAMING_PAGE_BYTES, staging_,
                                   STREAMING_PAGE_BYTES, cudaMemcpyHostToDevice, stream_));
        return ~crc;
    }

private:
    cudaStream_t stream_ = nullptr;
    uint8_t* staging_ = nullptr;
    uint8_t* d_pool_ = nullptr;
};

int main()
{
    TextureStreamer streamer;
    uint32_t mix = 0;
    for (int p = 0; p < STREAMING_PAGES; ++p) mix ^= streamer.stream_page(100 + p, p);
    printf("streamed %d pages, crc mix %08x\n", STREAMING_PAGES, mix);
    return 0;
}

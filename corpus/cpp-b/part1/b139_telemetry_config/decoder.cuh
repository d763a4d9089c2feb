#pragma once
#include <cstdint>

struct FrameHeader {
    uint32_t sync_word;
    uint32_t seq;
    uint32_t payload_words;
    uint32_t crc;
};

__global__ void decode_frames(const uint32_t* raw, int frames, int words_per_frame, uint32_t* checksums) {
    int f = blockIdx.x * blockDim.x + threadIdx.x;
    if (f >= frames) return;
    const uint32_t* p = raw + static_cast<size_t>(f) * words_per_frame;
    uint32_t c = 0;
    for (int w = 0; w < words_per_frame; ++w) c = (c << 1 | c >> 31) ^ p[w];
    checksums[f] = c;
}

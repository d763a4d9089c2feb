// case: Streaming spectrogram with two pinned slots on two non-blocking streams: before refilling a slot's input or reading its magnitudes the host waits on that slot's event, so no host access races the copies and kernels of the previous round.
// expect: none
#include "pipeline.h"
#include <cmath>
#include <vector>

__global__ void goertzel_frames(const float* pcm, float* mag, int frames)
{
    int f = blockIdx.x, b = threadIdx.x + blockIdx.y * blockDim.x;
    if (f >= frames || b >= kBinsOut) return;
    float w = 2.f * 3.14159265f * b / 512.f, c = 2.f * cosf(w);
    float s1 = 0.f, s2 = 0.f;
    for (int k = 0; k < 512; ++k) {
        float win = 0.5f - 0.5f * cosf(2.f * 3.14159265f * k / 511.f);
        float s0 = pcm[f * kHop + k] * win + c * s1 - s2;
        s2 = s1; s1 = s0;
    }
    mag[(size_t)f * kBinsOut + b] = sqrtf(s1 * s1 + s2 * s2 - c * s1 * s2);
}

static void read_pcm(float* dst, int chunk)
{
    for (int i = 0; i < kChunkSamples; ++i)
        dst[i] = std::sin(0.05f * (i + chunk * kHop * kFramesPerChunk)) * 0.8f;
}

int main()
{
    Slot slots[kSlots];
    for (auto& s : slots) s.init();
    const int chunks = 16;
    std::vector<double> loudness(chunks, 0.0);

    for (int c = 0; c < chunks + kSlots; ++c) {
        Slot& s = slots[c % kSlots];
        if (c >= kSlots) {
            CHECK_CUDA(cudaEventSynchronize(s.done));      // round c-2 finished with this slot
            double acc = 0.0;
            for (size_t i = 0; i < (size_t)kFramesPerChunk * kBinsOut; ++i) acc += s.h_mag[i];
            loudness[c - kSlots] = acc;
        }
        if (c >= chunks) continue;
        read_pcm(s.h_pcm, c);
        CHECK_CUDA(cudaMemcpyAsync(s.d_pcm, s.h_pcm, kChunkSamples * sizeof(float), cudaMemcpyHostToDevice, s.stream));
        goertzel_frames<<<dim3(kFramesPerChunk, 3), 96, 0, s.stream>>>(s.d_pcm, s.d_mag, kFramesPerChunk);
        CHECK_CUDA(cudaMemcpyAsync(s.h_mag, s.d_mag, (size_t)kFramesPerChunk * kBinsOut * sizeof(float),
                                   cudaMemcpyDeviceToHost, s.stream));
        CHECK_CUDA(cudaEventRecord(s.done, s.stream));
    }

    for (int c = 0; c < chunks; c += 4) std::printf("chunk %2d energy %.1f\n", c, loudness[c]);
    for (auto& s : slots) s.release();
    return 0;
}

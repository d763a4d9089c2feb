// case: a GPU sampler loads its 32 MiB sample bank from a std::vector with blocking cudaMemcpy, sends its per-block voice table (a 2 KiB std::array on the stack, constant sizeof) with cudaMemcpyAsync, snapshots the mix bus with a device-to-device cudaMemcpyAsync and reads the output back into cudaMallocHost memory; no large async copy touches pageable memory.
// expect: none
#include <cuda_runtime.h>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

#define CUDA_CHECK(x)                                                                 \
    do {                                                                              \
        cudaError_t e_ = (x);                                                         \
        if (e_ != cudaSuccess) { std::fprintf(stderr, "%s\n", cudaGetErrorString(e_)); return 1; } \
    } while (0)

struct VoiceParams {
    uint32_t sample_offset;
    uint32_t sample_length;
    float pitch_ratio;
    float gain_l, gain_r;
    float phase;
    uint32_t active;
    uint32_t pad;
};
static_assert(sizeof(VoiceParams) == 32, "layout shared with the kernel");

constexpr int kVoices = 64;
constexpr int kFrames = 512;

__global__ void render_voices(const int16_t* bank, const VoiceParams* voices, float2* mix) {
    int f = blockIdx.x * blockDim.x + threadIdx.x;
    if (f >= kFrames) return;
    float2 acc = make_float2(0.f, 0.f);
    for (int v = 0; v < kVoices; ++v) {
        const VoiceParams& p = voices[v];
        if (!p.active) continue;
        uint32_t idx = static_cast<uint32_t>(p.phase + f * p.pitch_ratio) % p.sample_length;
        float s = bank[p.sample_offset + idx] * (1.f / 32768.f);
        acc.x += s * p.gain_l;
        acc.y += s * p.gain_r;
    }
    mix[f] = acc;
}

int main() {
    const size_t bank_samples = size_t(16) << 20;   // 32 MiB of 16-bit PCM
    std::vector<int16_t> bank(bank_samples);
    for (size_t i = 0; i < bank_samples; ++i) bank[i] = static_cast<int16_t>(12000 * std::sin(0.001 * i));

    int16_t* d_bank = nullptr;
    VoiceParams* d_voices = nullptr;
    float2 *d_mix = nullptr, *d_mix_prev = nullptr, *h_out = nullptr;
    CUDA_CHECK(cudaMalloc(&d_bank, bank_samples * sizeof(int16_t)));
    CUDA_CHECK(cudaMalloc(&d_voices, kVoices * sizeof(VoiceParams)));
    CUDA_CHECK(cudaMalloc(&d_mix, kFrames * sizeof(float2)));
    CUDA_CHECK(cudaMalloc(&d_mix_prev, kFrames * sizeof(float2)));
    CUDA_CHECK(cudaMallocHost(&h_out, kFrames * sizeof(float2)));

    CUDA_CHECK(cudaMemcpy(d_bank, bank.data(), bank_samples * sizeof(int16_t), cudaMemcpyHostToDevice));

    cudaStream_t audio;
    CUDA_CHECK(cudaStreamCreate(&audio));

    float peak = 0.f;
    for (int block = 0; block < 100; ++block) {
        std::array<VoiceParams, kVoices> voices{};
        for (int v = 0; v < 8; ++v)
            voices[v] = VoiceParams{static_cast<uint32_t>(v) << 20, 1u << 20, 1.f + 0.1f * v, 0.5f, 0.5f,
                                    float(block * kFrames), 1u, 0u};

        CUDA_CHECK(cudaMemcpyAsync(d_voices, voices.data(), sizeof(voices), cudaMemcpyHostToDevice, audio));
        render_voices<<<(kFrames + 127) / 128, 128, 0, audio>>>(d_bank, d_voices, d_mix);
        CUDA_CHECK(cudaMemcpyAsync(d_mix_prev, d_mix, kFrames * sizeof(float2), cudaMemcpyDeviceToDevice, audio));
        CUDA_CHECK(cudaMemcpyAsync(h_out, d_mix, kFrames * sizeof(float2), cudaMemcpyDeviceToHost, audio));
        CUDA_CHECK(cudaStreamSynchronize(audio));

        for (int f = 0; f < kFrames; ++f) peak = std::fmax(peak, std::fabs(h_out[f].x));
    }
    std::printf("output peak: %.3f\n", peak);

    CUDA_CHECK(cudaStreamDestroy(audio));
    CUDA_CHECK(cudaFreeHost(h_out));
    CUDA_CHECK(cudaFree(d_mix_prev));
    CUDA_CHECK(cudaFree(d_mix));
    CUDA_CHECK(cudaFree(d_voices));
    CUDA_CHECK(cudaFree(d_bank));
    return 0;
}

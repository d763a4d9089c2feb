// case: a pulse-Doppler radar processor picks its readback buffer's cudaHostAlloc flags by preprocessor; the write-combined flag is only chosen under RADAR_WC_READBACK, which nothing defines, so the default build reads plain pinned memory
// expect: none
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#ifdef RADAR_WC_READBACK
static const unsigned kReadbackFlags = cudaHostAllocWriteCombined;   // experiment: faster DMA, slow CPU reads
#else
static const unsigned kReadbackFlags = cudaHostAllocDefault;
#endif

#define RCHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    std::fprintf(stderr, "radar: %s -> %s\n", #x, cudaGetErrorString(e)); std::exit(1); } } while (0)

constexpr int kPulses = 128;      // slow time
constexpr int kRangeBins = 2048;  // fast time

// Doppler DFT across pulses for each range bin; |X|^2 into the range-Doppler map.
__global__ void doppler_map(const float2* iq, float* rd_map) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    int d = blockIdx.y;
    if (r >= kRangeBins) return;
    float re = 0.f, im = 0.f;
    for (int p = 0; p < kPulses; ++p) {
        float s, c;
        sincospif(-2.f * d * p / kPulses, &s, &c);
        float2 x = iq[p * kRangeBins + r];
        re += x.x * c - x.y * s;
        im += x.x * s + x.y * c;
    }
    rd_map[d * kRangeBins + r] = re * re + im * im;
}

__global__ void synth_target(float2* iq, int range_bin, float doppler) {
    int r = blockIdx.x * blockDim.x + threadIdx.x, p = blockIdx.y;
    if (r >= kRangeBins) return;
    float a = (r == range_bin) ? 1.f : 0.001f;
    float s, c;
    sincospif(2.f * doppler * p, &s, &c);
    iq[p * kRangeBins + r] = make_float2(a * c, a * s);
}

int main() {
    const size_t cells = (size_t)kPulses * kRangeBins;
    float2* d_iq = nullptr;
    float* d_map = nullptr;
    float* h_map = nullptr;
    RCHECK(cudaMalloc(&d_iq, cells * sizeof(float2)));
    RCHECK(cudaMalloc(&d_map, cells * sizeof(float)));
    RCHECK(cudaHostAlloc(&h_map, cells * sizeof(float), kReadbackFlags));

    cudaStream_t s;
    RCHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    synth_target<<<dim3(kRangeBins / 256, kPulses), 256, 0, s>>>(d_iq, 700, 0.25f);
    doppler_map<<<dim3(kRangeBins / 256, kPulses), 256, 0, s>>>(d_iq, d_map);
    RCHECK(cudaMemcpyAsync(h_map, d_map, cells * sizeof(float), cudaMemcpyDeviceToHost, s));
    RCHECK(cudaStreamSynchronize(s));

    // CFAR-lite: report the strongest cell
    size_t best = 0;
    for (size_t i = 1; i < cells; ++i)
        if (h_map[i] > h_map[best]) best = i;
    std::printf("detection: doppler bin %zu, range bin %zu, power %.1f dB\n", best / kRangeBins,
                best % kRangeBins, 10.0 * std::log10(h_map[best]));

    RCHECK(cudaStreamDestroy(s));
    RCHECK(cudaFreeHost(h_map));
    RCHECK(cudaFree(d_map));
    RCHECK(cudaFree(d_iq));
    return 0;
}

// case: audio spectrogram tool allocates both staging buffers write-combined; the host then reads magnitudes back out of the write-combined output buffer, and the cleanup path releases that pinned buffer with cudaFree instead of cudaFreeHost.
// expect: write_combined_host_read=1, mismatched_free=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <vector>
#include <string>

#define CU(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    fprintf(stderr, "cuda: %s (%s)\n", cudaGetErrorString(e), #x); exit(1); } } while (0)

constexpr int kWin = 1024;
constexpr int kBinsOut = kWin / 2;

__global__ void dft_magnitude(const float* __restrict__ pcm, float* __restrict__ mag, int hop, int frames)
{
    int f = blockIdx.x;
    int k = threadIdx.x;
    if (f >= frames || k >= kBinsOut) return;
    const float* w = pcm + (size_t)f * hop;
    float re = 0.f, im = 0.f;
    for (int n = 0; n < kWin; ++n) {
        float hann = 0.5f - 0.5f * __cosf(6.2831853f * n / (kWin - 1));
        float s, c;
        __sincosf(-6.2831853f * k * n / kWin, &s, &c);
        re += w[n] * hann * c;
        im += w[n] * hann * s;
    }
    mag[(size_t)f * kBinsOut + k] = sqrtf(re * re + im * im);
}

int main(int argc, char** argv)
{
    const int seconds = argc > 1 ? atoi(argv[1]) : 30;
    const int rate = 48000, hop = 512;
    const size_t samples = (size_t)seconds * rate;
    const int frames = (int)((samples - kWin) / hop);
    std::string label = argc > 2 ? argv[2] : "take_07.wav";

    float *h_pcm, *h_mag;
    CU(cudaHostAlloc(&h_pcm, samples * sizeof(float), cudaHostAllocWriteCombined));
    CU(cudaHostAlloc(&h_mag, (size_t)frames * kBinsOut * sizeof(float), cudaHostAllocWriteCombined));
    for (size_t i = 0; i < samples; ++i)
        h_pcm[i] = 0.3f * sinf(6.2831853f * 440.f * i / rate) + 0.1f * sinf(6.2831853f * 3520.f * i / rate);

    float *d_pcm, *d_mag;
    CU(cudaMalloc(&d_pcm, samples * sizeof(float)));
    CU(cudaMalloc(&d_mag, (size_t)frames * kBinsOut * sizeof(float)));

    cudaStream_t s;
    CU(cudaStreamCreate(&s));
    CU(cudaMemcpyAsync(d_pcm, h_pcm, samples * sizeof(float), cudaMemcpyHostToDevice, s));
    dft_magnitude<<<frames, kBinsOut, 0, s>>>(d_pcm, d_mag, hop, frames);
    CU(cudaGetLastError());
    CU(cudaMemcpyAsync(h_mag, d_mag, (size_t)frames * kBinsOut * sizeof(float), cudaMemcpyDeviceToHost, s));
    CU(cudaStreamSynchronize(s));

    std::vector<int> peak_bin(frames);
    for (int f = 0; f < frames; ++f) {
        int best = 0;
        for (int k = 1; k < kBinsOut; ++k)
            if (h_mag[(size_t)f * kBinsOut + k] > h_mag[(size_t)f * kBinsOut + best]) best = k;  // EXPECT: write_combined_host_read
        peak_bin[f] = best;
    }
    printf("%s: %d frames, peak at frame 0: %.1f Hz\n", label.c_str(), frames,
           peak_bin[0] * (float)rate / kWin);

    CU(cudaStreamDestroy(s));
    CU(cudaFree(d_mag));
    CU(cudaFree(d_pcm));
    cudaFree(h_mag);                                  // EXPECT: mismatched_free
    CU(cudaFreeHost(h_pcm));
    return 0;
}

// case: a spectrum analyzer copies magnitude frames into pinned memory on a non-blocking stream, records an event after the copy, and keeps the UI thread responsive by polling cudaEventQuery until it stops returning cudaErrorNotReady before it reads the pinned frame.
// expect: none
#include <cuda_runtime.h>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <thread>

#define CHECK_CUDA(x)                                                                  \
    do {                                                                               \
        cudaError_t e_ = (x);                                                          \
        if (e_ != cudaSuccess && e_ != cudaErrorNotReady) {                            \
            std::fprintf(stderr, "%s failed: %s\n", #x, cudaGetErrorString(e_));       \
            return false;                                                              \
        }                                                                              \
    } while (0)

constexpr int kFft = 4096;
constexpr int kBins = kFft / 2;
constexpr int kFrames = 64;

// Naive DFT magnitude per bin, one frame per blockIdx.y.
__global__ void dft_magnitude(const float* pcm, int hop, float* mags) {
    int k = blockIdx.x * blockDim.x + threadIdx.x, f = blockIdx.y;
    if (k >= kBins) return;
    const float* x = pcm + f * hop;
    float re = 0.f, im = 0.f;
    for (int n = 0; n < kFft; ++n) {
        float w = 0.5f - 0.5f * __cosf(6.2831853f * n / (kFft - 1));
        float s, c;
        __sincosf(-6.2831853f * k * n / kFft, &s, &c);
        re += w * x[n] * c;
        im += w * x[n] * s;
    }
    mags[f * kBins + k] = sqrtf(re * re + im * im);
}

struct Meter {
    int redraws = 0;
    void redraw_idle() { ++redraws; std::this_thread::sleep_for(std::chrono::microseconds(200)); }
};

static bool analyze(const float* d_pcm, float* d_mags, float* h_mags, cudaStream_t s, cudaEvent_t ready, Meter& ui) {
    dft_magnitude<<<dim3((kBins + 127) / 128, kFrames), 128, 0, s>>>(d_pcm, kFft / 4, d_mags);
    CHECK_CUDA(cudaMemcpyAsync(h_mags, d_mags, sizeof(float) * kFrames * kBins, cudaMemcpyDeviceToHost, s));
    CHECK_CUDA(cudaEventRecord(ready, s));

    cudaError_t q;
    while ((q = cudaEventQuery(ready)) == cudaErrorNotReady) ui.redraw_idle();
    if (q != cudaSuccess) return false;

    int peak_bin = 0;
    for (int k = 1; k < kBins; ++k)
        if (h_mags[(kFrames - 1) * kBins + k] > h_mags[(kFrames - 1) * kBins + peak_bin]) peak_bin = k;
    std::printf("peak at %.1f Hz after %d UI redraws\n", peak_bin * 48000.0 / kFft, ui.redraws);
    return true;
}

int main() {
    const int samples = kFft + (kFrames - 1) * (kFft / 4);
    float *d_pcm = nullptr, *d_mags = nullptr, *h_mags = nullptr, *h_pcm = nullptr;
    cudaMallocHost(&h_pcm, samples * sizeof(float));
    for (int i = 0; i < samples; ++i) h_pcm[i] = std::sin(2.0 * M_PI * 1000.0 * i / 48000.0);
    cudaMalloc(&d_pcm, samples * sizeof(float));
    cudaMalloc(&d_mags, sizeof(float) * kFrames * kBins);
    cudaMallocHost(&h_mags, sizeof(float) * kFrames * kBins);

    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    cudaEvent_t ready;
    cudaEventCreateWithFlags(&ready, cudaEventDisableTiming);
    cudaMemcpyAsync(d_pcm, h_pcm, samples * sizeof(float), cudaMemcpyHostToDevice, s);

    Meter ui;
    bool ok = analyze(d_pcm, d_mags, h_mags, s, ready, ui);

    cudaStreamSynchronize(s);
    cudaEventDestroy(ready);
    cudaStreamDestroy(s);
    cudaFreeHost(h_mags);
    cudaFreeHost(h_pcm);
    cudaFree(d_mags);
    cudaFree(d_pcm);
    return ok ? 0 : 1;
}

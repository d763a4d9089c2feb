// case: A spectrogram tool chooses its readback flags and its wait with #ifdef: USE_WC_READBACK is never defined, so the buffer is cudaHostAllocDefault, and SYNC_BEFORE_READBACK is defined at the top, so the stream is synchronized before the host reads the magnitudes.
// expect: none
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#define SYNC_BEFORE_READBACK 1
/* #define USE_WC_READBACK */

#ifdef USE_WC_READBACK
#define READBACK_FLAGS cudaHostAllocWriteCombined
#else
#define READBACK_FLAGS cudaHostAllocDefault
#endif

#define CUDA_CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s -> %s\n", #x, cudaGetErrorString(e_)); exit(1); } } while (0)

#define FRAME 1024
#define HOP 256
#define N_FRAMES 2048
#define N_BINS (FRAME / 2)

__global__ void dft_magnitude(const float* signal, float* mag, int n_frames)
{
    int f = blockIdx.x, k = threadIdx.x;
    if (f >= n_frames || k >= N_BINS) return;
    const float* x = signal + f * HOP;
    float re = 0.f, im = 0.f;
    for (int t = 0; t < FRAME; ++t) {
        float w = 0.5f - 0.5f * cospif(2.f * t / (FRAME - 1));
        float s, c;
        sincospif(-2.f * k * t / FRAME, &s, &c);
        re += w * x[t] * c;
        im += w * x[t] * s;
    }
    mag[f * N_BINS + k] = sqrtf(re * re + im * im);
}

int main(void)
{
    const size_t n_samples = (size_t)(N_FRAMES - 1) * HOP + FRAME;
    const size_t mag_bytes = (size_t)N_FRAMES * N_BINS * sizeof(float);
    float *h_signal, *h_mag, *d_signal, *d_mag;
    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CUDA_CHECK(cudaMallocHost((void**)&h_signal, n_samples * sizeof(float)));
    CUDA_CHECK(cudaHostAlloc((void**)&h_mag, mag_bytes, READBACK_FLAGS));
    CUDA_CHECK(cudaMalloc((void**)&d_signal, n_samples * sizeof(float)));
    CUDA_CHECK(cudaMalloc((void**)&d_mag, mag_bytes));

    for (size_t i = 0; i < n_samples; ++i) h_signal[i] = sinf(0.05f * i) + 0.25f * sinf(0.31f * i);

    CUDA_CHECK(cudaMemcpyAsync(d_signal, h_signal, n_samples * sizeof(float), cudaMemcpyHostToDevice, s));
    dft_magnitude<<<N_FRAMES, N_BINS, 0, s>>>(d_signal, d_mag, N_FRAMES);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpyAsync(h_mag, d_mag, mag_bytes, cudaMemcpyDeviceToHost, s));
#ifdef SYNC_BEFORE_READBACK
    CUDA_CHECK(cudaStreamSynchronize(s));
#endif

    int peak_bin = 0;
    for (int k = 1; k < N_BINS; ++k)
        if (h_mag[k] > h_mag[peak_bin]) peak_bin = k;
    printf("frame 0 peaks at bin %d (%.3f)\n", peak_bin, h_mag[peak_bin]);

#ifndef SYNC_BEFORE_READBACK
    CUDA_CHECK(cudaStreamSynchronize(s));
#endif
    CUDA_CHECK(cudaFree(d_mag));
    CUDA_CHECK(cudaFree(d_signal));
    CUDA_CHECK(cudaFreeHost(h_mag));
    CUDA_CHECK(cudaFreeHost(h_signal));
    CUDA_CHECK(cudaStreamDestroy(s));
    return 0;
}

// case: a naive DFT power-spectrum accumulator allocates the power buffer for the NFFT/2+1 one-sided bins, but clears it and reads it back with NFFT-sized byte counts, so both the memset and the device-to-host copy run past the end of the device allocation.
// expect: copy_out_of_bounds=2
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#define NFFT 4096
#define NBINS (NFFT / 2 + 1)
#define NFRAMES 256

#define CUDA_CHECK(call)                                                         \
    do {                                                                         \
        cudaError_t e = (call);                                                  \
        if (e != cudaSuccess) {                                                  \
            fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); \
            exit(1);                                                             \
        }                                                                        \
    } while (0)

__global__ void dft_power_accumulate(const float* frames, float* power, int nframes) {
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= NBINS) return;
    float acc = 0.f;
    for (int f = 0; f < nframes; ++f) {
        const float* x = frames + size_t(f) * NFFT;
        float re = 0.f, im = 0.f;
        for (int t = 0; t < NFFT; ++t) {
            float s, c;
            __sincosf(-2.f * 3.14159265f * float((k * t) % NFFT) / NFFT, &s, &c);
            re += x[t] * c;
            im += x[t] * s;
        }
        acc += re * re + im * im;
    }
    power[k] += acc / nframes;
}

static float h_frames[NFRAMES * NFFT];
static float h_power[NFFT];

int main() {
    for (int f = 0; f < NFRAMES; ++f)
        for (int t = 0; t < NFFT; ++t)
            h_frames[f * NFFT + t] = std::sin(2.f * 3.14159265f * 440.f * t / 16000.f) + 0.1f * ((t * 7 + f) % 13);

    float *d_frames, *d_power;
    CUDA_CHECK(cudaMalloc(&d_frames, sizeof(h_frames)));
    CUDA_CHECK(cudaMalloc(&d_power, NBINS * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(d_frames, h_frames, sizeof(h_frames), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(d_power, 0, NFFT * sizeof(float))); // EXPECT: copy_out_of_bounds

    dft_power_accumulate<<<(NBINS + 127) / 128, 128>>>(d_frames, d_power, NFRAMES);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpy(h_power, d_power, NFFT * sizeof(float), cudaMemcpyDeviceToHost)); // EXPECT: copy_out_of_bounds

    int peak = 0;
    for (int k = 1; k < NBINS; ++k)
        if (h_power[k] > h_power[peak]) peak = k;
    printf("peak bin %d (%.1f Hz)\n", peak, peak * 16000.f / NFFT);

    CUDA_CHECK(cudaFree(d_frames));
    CUDA_CHECK(cudaFree(d_power));
    return 0;
}

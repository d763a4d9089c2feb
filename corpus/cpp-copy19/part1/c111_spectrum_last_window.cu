// case: windowed power spectrum that uploads the last analysis window from &h_signal[SIGNAL_LEN - WINDOW + 1], reading one sample past the end of the host signal array
// expect: copy_out_of_bounds=1
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <cuda_runtime.h>

#define SIGNAL_LEN 48000
#define WINDOW 1024
#define HOP 512

#define CK(call)                                                              \
    do {                                                                      \
        cudaError_t err = call;                                               \
        if (err != cudaSuccess) {                                             \
            fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(err)); \
            exit(2);                                                          \
        }                                                                     \
    } while (0)

// naive DFT magnitude of one Hann-windowed frame
__global__ void frame_power(const float *frame, float *power, int n)
{
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n / 2) return;
    float re = 0.0f, im = 0.0f;
    for (int t = 0; t < n; ++t) {
        float w = 0.5f - 0.5f * cospif(2.0f * t / (n - 1));
        float s, c;
        sincospif(-2.0f * k * t / n, &s, &c);
        re += w * frame[t] * c;
        im += w * frame[t] * s;
    }
    power[k] = re * re + im * im;
}

static float peak_bin(const float *p, int n)
{
    int best = 0;
    for (int k = 1; k < n; ++k)
        if (p[k] > p[best]) best = k;
    return (float)best;
}

int main()
{
    float *h_signal = new float[SIGNAL_LEN];
    for (int i = 0; i < SIGNAL_LEN; ++i)
        h_signal[i] = sinf(2.0f * 3.14159265f * 440.0f * i / 48000.0f);

    float h_power[WINDOW / 2];
    float *d_frame, *d_power;
    CK(cudaMalloc(&d_frame, WINDOW * sizeof(float)));
    CK(cudaMalloc(&d_power, (WINDOW / 2) * sizeof(float)));

    CK(cudaMemcpy(d_frame, &h_signal[SIGNAL_LEN - WINDOW + 1], WINDOW * sizeof(float), cudaMemcpyHostToDevice)); // EXPECT: copy_out_of_bounds
    frame_power<<<(WINDOW / 2 + 127) / 128, 128>>>(d_frame, d_power, WINDOW);
    CK(cudaGetLastError());
    CK(cudaMemcpy(h_power, d_power, sizeof(h_power), cudaMemcpyDeviceToHost));

    printf("peak bin of last frame: %.0f\n", peak_bin(h_power, WINDOW / 2));

    CK(cudaFree(d_frame));
    CK(cudaFree(d_power));
    delete[] h_signal;
    return 0;
}

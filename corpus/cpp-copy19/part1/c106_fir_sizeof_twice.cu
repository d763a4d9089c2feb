// case: FIR filter whose tap upload multiplies sizeof of the host tap array (already a byte count) by sizeof(float), copying 4x the taps into the device buffer
// expect: copy_out_of_bounds=1
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <cuda_runtime.h>

#define NTAPS 64
#define NSAMPLES (1 << 20)

#define cudaCheck(expr)                                                   \
    do {                                                                  \
        cudaError_t _e = (expr);                                          \
        if (_e != cudaSuccess) {                                          \
            fprintf(stderr, "%s failed: %s\n", #expr, cudaGetErrorString(_e)); \
            exit(EXIT_FAILURE);                                           \
        }                                                                 \
    } while (0)

__global__ void fir(const float *x, const float *taps, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float acc = 0.0f;
    for (int k = 0; k < NTAPS; ++k) {
        int j = i - k;
        if (j >= 0) acc += taps[k] * x[j];
    }
    y[i] = acc;
}

int main()
{
    float h_taps[NTAPS];
    for (int k = 0; k < NTAPS; ++k) {
        float t = (float)(k - NTAPS / 2);
        h_taps[k] = (t == 0.0f) ? 0.5f : sinf(0.5f * 3.14159265f * t) / (3.14159265f * t);
    }

    float *h_x = (float *)malloc(NSAMPLES * sizeof(float));
    float *h_y = (float *)malloc(NSAMPLES * sizeof(float));
    for (int i = 0; i < NSAMPLES; ++i) h_x[i] = sinf(0.001f * i) + 0.1f * cosf(0.9f * i);

    float *d_x, *d_taps, *d_y;
    cudaCheck(cudaMalloc(&d_x, NSAMPLES * sizeof(float)));
    cudaCheck(cudaMalloc(&d_taps, NTAPS * sizeof(float)));
    cudaCheck(cudaMalloc(&d_y, NSAMPLES * sizeof(float)));

    cudaCheck(cudaMemcpy(d_x, h_x, NSAMPLES * sizeof(float), cudaMemcpyHostToDevice));
    cudaCheck(cudaMemcpy(d_taps, h_taps, sizeof(h_taps) * sizeof(float), cudaMemcpyHostToDevice)); // EXPECT: copy_out_of_bounds

    fir<<<(NSAMPLES + 255) / 256, 256>>>(d_x, d_taps, d_y, NSAMPLES);
    cudaCheck(cudaGetLastError());
    cudaCheck(cudaMemcpy(h_y, d_y, NSAMPLES * sizeof(float), cudaMemcpyDeviceToHost));

    double energy = 0.0;
    for (int i = 0; i < NSAMPLES; ++i) energy += h_y[i] * h_y[i];
    printf("output energy %.3f\n", energy);

    cudaCheck(cudaFree(d_x));
    cudaCheck(cudaFree(d_taps));
    cudaCheck(cudaFree(d_y));
    free(h_x);
    free(h_y);
    return 0;
}

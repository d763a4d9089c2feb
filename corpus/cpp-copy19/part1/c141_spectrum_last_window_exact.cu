// case: short-time energy analysis that uploads the final window from &h_signal[SIGNAL_LEN - WINDOW], which leaves exactly WINDOW samples for the copy
// expect: none
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <cuda_runtime.h>

#define SIGNAL_LEN 44100
#define WINDOW 2048

#define CK(call)                                                              \
    do {                                                                      \
        cudaError_t err = call;                                               \
        if (err != cudaSuccess) {                                             \
            fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(err)); \
            exit(2);                                                          \
        }                                                                     \
    } while (0)

__global__ void band_energy(const float *frame, float *bands, int n, int nbands)
{
    int b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= nbands) return;
    int per = n / nbands;
    float e = 0.0f;
    for (int t = b * per; t < (b + 1) * per; ++t) e += frame[t] * frame[t];
    bands[b] = e / per;
}

int main()
{
    const int nbands = 32;
    float *h_signal = new float[SIGNAL_LEN];
    for (int i = 0; i < SIGNAL_LEN; ++i)
        h_signal[i] = sinf(0.02f * i) * expf(-0.00005f * i);

    float h_bands[nbands];
    float *d_frame, *d_bands;
    CK(cudaMalloc(&d_frame, WINDOW * sizeof(float)));
    CK(cudaMalloc(&d_bands, nbands * sizeof(float)));

    CK(cudaMemcpy(d_frame, &h_signal[SIGNAL_LEN - WINDOW], WINDOW * sizeof(float), cudaMemcpyHostToDevice));
    band_energy<<<1, nbands>>>(d_frame, d_bands, WINDOW, nbands);
    CK(cudaGetLastError());
    CK(cudaMemcpy(h_bands, d_bands, nbands * sizeof(float), cudaMemcpyDeviceToHost));

    float total = 0.0f;
    for (int b = 0; b < nbands; ++b) total += h_bands[b];
    printf("energy of the last window: %f\n", total);

    CK(cudaFree(d_frame));
    CK(cudaFree(d_bands));
    delete[] h_signal;
    return 0;
}

// case: IIR equalizer whose host coefficient pointer stays NULL because load_coeffs() receives it by value and fills its own copy; cudaMemcpyToSymbol then reads from the null source
// expect: unallocated_pointer=1
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <cuda_runtime.h>

#define NBANDS 10
#define NCOEF (NBANDS * 5)
#define NSAMP (1 << 16)

__constant__ float c_biquad[NCOEF];

static void load_coeffs(float *coeffs, float sample_rate)
{
    coeffs = (float *)malloc(NCOEF * sizeof(float));
    for (int b = 0; b < NBANDS; ++b) {
        float f0 = 31.25f * powf(2.0f, (float)b);
        float w0 = 2.0f * 3.14159265f * f0 / sample_rate;
        float alpha = sinf(w0) / 2.0f;
        float a0 = 1.0f + alpha;
        coeffs[b * 5 + 0] = alpha / a0;
        coeffs[b * 5 + 1] = 0.0f;
        coeffs[b * 5 + 2] = -alpha / a0;
        coeffs[b * 5 + 3] = -2.0f * cosf(w0) / a0;
        coeffs[b * 5 + 4] = (1.0f - alpha) / a0;
    }
}

__global__ void band_energy(const float *x, float *energy, int n)
{
    int band = threadIdx.x;
    if (band >= NBANDS) return;
    const float *c = &c_biquad[band * 5];
    float x1 = 0, x2 = 0, y1 = 0, y2 = 0, e = 0;
    for (int i = 0; i < n; ++i) {
        float y = c[0] * x[i] + c[1] * x1 + c[2] * x2 - c[3] * y1 - c[4] * y2;
        x2 = x1; x1 = x[i]; y2 = y1; y1 = y;
        e += y * y;
    }
    energy[band] = e / n;
}

int main(void)
{
    float *h_coeffs = NULL;
    load_coeffs(h_coeffs, 48000.0f);

    float *h_x = (float *)malloc(NSAMP * sizeof(float));
    for (int i = 0; i < NSAMP; ++i) h_x[i] = sinf(2.0f * 3.14159265f * 1000.0f * i / 48000.0f);
    float h_energy[NBANDS];

    float *d_x, *d_energy;
    cudaMalloc(&d_x, NSAMP * sizeof(float));
    cudaMalloc(&d_energy, NBANDS * sizeof(float));
    cudaMemcpy(d_x, h_x, NSAMP * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpyToSymbol(c_biquad, h_coeffs, NCOEF * sizeof(float)); // EXPECT: unallocated_pointer

    band_energy<<<1, 32>>>(d_x, d_energy, NSAMP);
    cudaMemcpy(h_energy, d_energy, sizeof(h_energy), cudaMemcpyDeviceToHost);
    for (int b = 0; b < NBANDS; ++b) printf("band %d: %g\n", b, h_energy[b]);

    cudaFree(d_x);
    cudaFree(d_energy);
    free(h_x);
    return 0;
}

// case: Filter coefficients are staged in cudaHostAllocWriteCombined memory that the host only writes (never reads back), and results land in an ordinary cudaMallocHost buffer that is read after cudaStreamSynchronize.
// expect: none
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <cuda_runtime.h>

#define TAPS      (1 << 16)
#define SIGNAL    (1 << 22)
#define CU(x) if ((x) != cudaSuccess) { fprintf(stderr, "fail: %s\n", #x); exit(2); }

__global__ void fir_tile(const float *sig, const float *coef, float *out, int n, int taps)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float acc = 0.f;
    for (int k = 0; k < 64 && k <= i; k++)
        acc += sig[i - k] * coef[(i + k) % taps];
    out[i] = acc;
}

int main(void)
{
    float *h_coef, *h_sig, *h_out;
    float *d_coef, *d_sig, *d_out;
    cudaStream_t st;
    int i;

    CU(cudaHostAlloc((void **)&h_coef, TAPS * sizeof(float), cudaHostAllocWriteCombined));
    CU(cudaHostAlloc((void **)&h_sig, SIGNAL * sizeof(float), cudaHostAllocWriteCombined));
    CU(cudaMallocHost((void **)&h_out, SIGNAL * sizeof(float)));
    CU(cudaMalloc((void **)&d_coef, TAPS * sizeof(float)));
    CU(cudaMalloc((void **)&d_sig, SIGNAL * sizeof(float)));
    CU(cudaMalloc((void **)&d_out, SIGNAL * sizeof(float)));
    CU(cudaStreamCreate(&st));

    /* write-only fills: each element is stored once, nothing is read back */
    for (i = 0; i < TAPS; i++)
        h_coef[i] = 0.5f * (1.0f - cosf(6.2831853f * i / (TAPS - 1)));
    for (i = 0; i < SIGNAL; i++)
        h_sig[i] = sinf(0.001f * i);

    CU(cudaMemcpyAsync(d_coef, h_coef, TAPS * sizeof(float), cudaMemcpyHostToDevice, st));
    CU(cudaMemcpyAsync(d_sig, h_sig, SIGNAL * sizeof(float), cudaMemcpyHostToDevice, st));
    fir_tile<<<(SIGNAL + 255) / 256, 256, 0, st>>>(d_sig, d_coef, d_out, SIGNAL, TAPS);
    CU(cudaMemcpyAsync(h_out, d_out, SIGNAL * sizeof(float), cudaMemcpyDeviceToHost, st));
    CU(cudaStreamSynchronize(st));

    double energy = 0.0;
    for (i = 0; i < SIGNAL; i++)
        energy += (double)h_out[i] * h_out[i];
    printf("output energy %g\n", energy);

    cudaStreamDestroy(st);
    cudaFree(d_out); cudaFree(d_sig); cudaFree(d_coef);
    cudaFreeHost(h_out); cudaFreeHost(h_sig); cudaFreeHost(h_coef);
    return 0;
}

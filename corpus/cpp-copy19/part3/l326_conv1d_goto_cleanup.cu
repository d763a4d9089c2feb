// case: a C-style 1D convolution routine jumps to a single cleanup label on every error, where all three device buffers are freed (cudaFree of a still-null pointer is a no-op)
// expect: none
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

#define SIGNAL_LEN (1 << 22)
#define FILTER_LEN 63

__global__ void conv1d(const float *sig, const float *filt, float *out, int n, int m)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float acc = 0.0f;
    int half = m / 2;
    for (int k = 0; k < m; k++) {
        int j = i + k - half;
        if (j >= 0 && j < n) acc += sig[j] * filt[k];
    }
    out[i] = acc;
}

int convolve(const float *h_sig, const float *h_filt, float *h_out)
{
    int status = -1;
    float *d_sig = NULL, *d_filt = NULL, *d_out = NULL;
    cudaError_t err;

    err = cudaMalloc((void **)&d_sig, SIGNAL_LEN * sizeof(float));
    if (err != cudaSuccess) goto cleanup;
    err = cudaMalloc((void **)&d_filt, FILTER_LEN * sizeof(float));
    if (err != cudaSuccess) goto cleanup;
    err = cudaMalloc((void **)&d_out, SIGNAL_LEN * sizeof(float));
    if (err != cudaSuccess) goto cleanup;

    err = cudaMemcpy(d_sig, h_sig, SIGNAL_LEN * sizeof(float), cudaMemcpyHostToDevice);
    if (err != cudaSuccess) goto cleanup;
    err = cudaMemcpy(d_filt, h_filt, FILTER_LEN * sizeof(float), cudaMemcpyHostToDevice);
    if (err != cudaSuccess) goto cleanup;

    conv1d<<<(SIGNAL_LEN + 255) / 256, 256>>>(d_sig, d_filt, d_out, SIGNAL_LEN, FILTER_LEN);
    err = cudaMemcpy(h_out, d_out, SIGNAL_LEN * sizeof(float), cudaMemcpyDeviceToHost);
    if (err != cudaSuccess) goto cleanup;
    status = 0;

cleanup:
    if (err != cudaSuccess) fprintf(stderr, "convolve: %s\n", cudaGetErrorString(err));
    cudaFree(d_sig);
    cudaFree(d_filt);
    cudaFree(d_out);
    return status;
}

int main(void)
{
    float *sig = (float *)malloc(SIGNAL_LEN * sizeof(float));
    float *out = (float *)malloc(SIGNAL_LEN * sizeof(float));
    float filt[FILTER_LEN];
    for (int i = 0; i < SIGNAL_LEN; i++) sig[i] = (i % 100) < 50 ? 1.0f : -1.0f;
    for (int k = 0; k < FILTER_LEN; k++) filt[k] = 1.0f / FILTER_LEN;

    int rc = convolve(sig, filt, out);
    if (rc == 0) printf("out[25] = %f, out[50] = %f\n", out[25], out[50]);

    free(sig);
    free(out);
    return rc ? EXIT_FAILURE : EXIT_SUCCESS;
}

// case: dot-product benchmark that picks float or double storage from argv; its accumulator pointer starts NULL but both branches cudaMalloc it before the memset, the launch and the readback
// expect: none
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime.h>

#define N (1 << 22)

__global__ void dot_f(const float *x, const float *y, void *acc, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd((float *)acc, x[i] * y[i]);
}

__global__ void dot_d(const float *x, const float *y, void *acc, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd((double *)acc, (double)x[i] * y[i]);
}

int main(int argc, char **argv)
{
    int use_double = argc > 1 && strcmp(argv[1], "double") == 0;
    float *h_x = (float *)malloc(N * sizeof(float));
    for (int i = 0; i < N; ++i) h_x[i] = 1.0f / (float)(1 + i % 1000);

    float *d_x;
    void *d_acc = NULL;
    size_t acc_bytes;
    cudaMalloc((void **)&d_x, N * sizeof(float));
    cudaMemcpy(d_x, h_x, N * sizeof(float), cudaMemcpyHostToDevice);

    if (use_double) {
        acc_bytes = sizeof(double);
        cudaMalloc(&d_acc, sizeof(double));
    } else {
        acc_bytes = sizeof(float);
        cudaMalloc(&d_acc, sizeof(float));
    }
    cudaMemset(d_acc, 0, acc_bytes);

    if (use_double)
        dot_d<<<N / 256, 256>>>(d_x, d_x, d_acc, N);
    else
        dot_f<<<N / 256, 256>>>(d_x, d_x, d_acc, N);

    double result_d = 0.0;
    float result_f = 0.0f;
    if (use_double) {
        cudaMemcpy(&result_d, d_acc, sizeof(double), cudaMemcpyDeviceToHost);
    } else {
        cudaMemcpy(&result_f, d_acc, sizeof(float), cudaMemcpyDeviceToHost);
        result_d = result_f;
    }
    printf("x.x = %.10f (%s)\n", result_d, use_double ? "double" : "float");

    cudaFree(d_acc);
    cudaFree(d_x);
    free(h_x);
    return 0;
}

// case: a DRACC-style matrix-vector program allocates its global device arrays in init_device() and releases all of them in finalize() before main returns
// expect: none
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

#define C 2048
#define THREADS_PER_BLOCK 256

float a[C];
float b[C * C];
float c[C];

float *d_a;
float *d_b;
float *d_c;

__global__ void matvec(const float *vec, const float *mat, float *res)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < C) {
        float acc = 0.0f;
        for (int j = 0; j < C; j++) {
            acc += mat[row * C + j] * vec[j];
        }
        res[row] = acc;
    }
}

void init_host(void)
{
    for (int i = 0; i < C; i++) {
        a[i] = (float)i;
        c[i] = 0.0f;
        for (int j = 0; j < C; j++) {
            b[i * C + j] = (i == j) ? 1.0f : 0.0f;
        }
    }
}

void init_device(void)
{
    cudaMalloc((void **)&d_a, C * sizeof(float));
    cudaMalloc((void **)&d_b, C * C * sizeof(float));
    cudaMalloc((void **)&d_c, C * sizeof(float));
    cudaMemcpy(d_a, a, C * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(d_b, b, C * C * sizeof(float), cudaMemcpyHostToDevice);
}

void finalize(void)
{
    cudaFree(d_a);
    cudaFree(d_b);
    cudaFree(d_c);
}

int check(void)
{
    for (int i = 0; i < C; i++) {
        if (c[i] != a[i]) return 1;
    }
    return 0;
}

int main(void)
{
    init_host();
    init_device();

    matvec<<<(C + THREADS_PER_BLOCK - 1) / THREADS_PER_BLOCK, THREADS_PER_BLOCK>>>(d_a, d_b, d_c);
    cudaMemcpy(c, d_c, C * sizeof(float), cudaMemcpyDeviceToHost);

    finalize();
    if (check()) {
        printf("matvec: wrong result\n");
        return 1;
    }
    printf("matvec: passed\n");
    return 0;
}

// case: C-style matrix-vector product whose vector upload reuses the matrix byte count, copying N*N floats into d_x which holds N floats (DRACC 009 style)
// expect: copy_out_of_bounds=1
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

#define N 512
#define THREADS 128

float *h_A, *h_x, *h_y;
float *d_A, *d_x, *d_y;

__global__ void matvec(const float *A, const float *x, float *y, int n)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < n) {
        float acc = 0.0f;
        for (int j = 0; j < n; ++j)
            acc += A[row * n + j] * x[j];
        y[row] = acc;
    }
}

void init_host(void)
{
    h_A = (float *)malloc(N * N * sizeof(float));
    h_x = (float *)malloc(N * N * sizeof(float));
    h_y = (float *)malloc(N * sizeof(float));
    for (int i = 0; i < N * N; ++i) {
        h_A[i] = (float)(i % 7) * 0.5f;
        h_x[i] = 1.0f / (float)((i % N) + 1);
    }
}

int main(void)
{
    init_host();

    cudaMalloc((void **)&d_A, N * N * sizeof(float));
    cudaMalloc((void **)&d_x, N * sizeof(float));
    cudaMalloc((void **)&d_y, N * sizeof(float));

    cudaMemcpy(d_A, h_A, N * N * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(d_x, h_x, N * N * sizeof(float), cudaMemcpyHostToDevice); // EXPECT: copy_out_of_bounds

    matvec<<<(N + THREADS - 1) / THREADS, THREADS>>>(d_A, d_x, d_y, N);
    cudaDeviceSynchronize();

    cudaMemcpy(h_y, d_y, N * sizeof(float), cudaMemcpyDeviceToHost);

    float checksum = 0.0f;
    for (int i = 0; i < N; ++i)
        checksum += h_y[i];
    printf("checksum = %f\n", checksum);

    cudaFree(d_A);
    cudaFree(d_x);
    cudaFree(d_y);
    free(h_A);
    free(h_x);
    free(h_y);
    return 0;
}

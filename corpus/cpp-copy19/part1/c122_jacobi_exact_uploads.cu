// case: C-style Jacobi iteration for Ax=b that uploads the N*N matrix and the two N-vectors each with exactly their allocated byte counts
// expect: none
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

#define N 1024
#define ITERS 100

float *h_A, *h_b, *h_x;
float *d_A, *d_b, *d_x, *d_xn;

__global__ void jacobi_sweep(const float *A, const float *b, const float *x, float *xn, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float sigma = 0.0f;
    for (int j = 0; j < n; ++j)
        if (j != i) sigma += A[i * n + j] * x[j];
    xn[i] = (b[i] - sigma) / A[i * n + i];
}

int main(void)
{
    h_A = (float *)malloc(N * N * sizeof(float));
    h_b = (float *)malloc(N * sizeof(float));
    h_x = (float *)malloc(N * sizeof(float));
    for (int i = 0; i < N; ++i) {
        for (int j = 0; j < N; ++j) h_A[i * N + j] = (i == j) ? 2.0f * N : 1.0f;
        h_b[i] = (float)i;
        h_x[i] = 0.0f;
    }

    cudaMalloc((void **)&d_A, N * N * sizeof(float));
    cudaMalloc((void **)&d_b, N * sizeof(float));
    cudaMalloc((void **)&d_x, N * sizeof(float));
    cudaMalloc((void **)&d_xn, N * sizeof(float));

    cudaMemcpy(d_A, h_A, N * N * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(d_b, h_b, N * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(d_x, h_x, N * sizeof(float), cudaMemcpyHostToDevice);

    for (int it = 0; it < ITERS; it += 2) {
        jacobi_sweep<<<N / 128, 128>>>(d_A, d_b, d_x, d_xn, N);
        jacobi_sweep<<<N / 128, 128>>>(d_A, d_b, d_xn, d_x, N);
    }

    cudaMemcpy(h_x, d_x, N * sizeof(float), cudaMemcpyDeviceToHost);
    printf("x[0] = %f, x[N-1] = %f\n", h_x[0], h_x[N - 1]);

    cudaFree(d_A);
    cudaFree(d_b);
    cudaFree(d_x);
    cudaFree(d_xn);
    free(h_A);
    free(h_b);
    free(h_x);
    return 0;
}

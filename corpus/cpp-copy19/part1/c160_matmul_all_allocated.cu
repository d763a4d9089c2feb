// case: C-style tiled matrix multiply with global device pointers, each of d_A, d_B and d_C allocated before its copy and launch
// expect: none
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

#define N 512
#define TILE 32

float *a, *b, *c;
float *d_A, *d_B, *d_C;

__global__ void matmul(const float *A, const float *B, float *C, int n)
{
    __shared__ float sa[TILE][TILE], sb[TILE][TILE];
    int row = blockIdx.y * TILE + threadIdx.y;
    int col = blockIdx.x * TILE + threadIdx.x;
    float acc = 0.0f;
    for (int t = 0; t < n / TILE; ++t) {
        sa[threadIdx.y][threadIdx.x] = A[row * n + t * TILE + threadIdx.x];
        sb[threadIdx.y][threadIdx.x] = B[(t * TILE + threadIdx.y) * n + col];
        __syncthreads();
        for (int k = 0; k < TILE; ++k) acc += sa[threadIdx.y][k] * sb[k][threadIdx.x];
        __syncthreads();
    }
    C[row * n + col] = acc;
}

int main(void)
{
    a = (float *)malloc(N * N * sizeof(float));
    b = (float *)malloc(N * N * sizeof(float));
    c = (float *)malloc(N * N * sizeof(float));
    for (int i = 0; i < N * N; ++i) {
        a[i] = 1.0f;
        b[i] = 2.0f;
    }

    cudaMalloc((void **)&d_A, N * N * sizeof(float));
    cudaMalloc((void **)&d_B, N * N * sizeof(float));
    cudaMalloc((void **)&d_C, N * N * sizeof(float));

    cudaMemcpy(d_A, a, N * N * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(d_B, b, N * N * sizeof(float), cudaMemcpyHostToDevice);

    dim3 threads(TILE, TILE);
    dim3 grid(N / TILE, N / TILE);
    matmul<<<grid, threads>>>(d_A, d_B, d_C, N);
    cudaDeviceSynchronize();

    cudaMemcpy(c, d_C, N * N * sizeof(float), cudaMemcpyDeviceToHost);

    int errors = 0;
    for (int i = 0; i < N * N; ++i)
        if (c[i] != 2.0f * N) ++errors;
    printf("%d errors\n", errors);

    cudaFree(d_A);
    cudaFree(d_B);
    cudaFree(d_C);
    free(a);
    free(b);
    free(c);
    return 0;
}

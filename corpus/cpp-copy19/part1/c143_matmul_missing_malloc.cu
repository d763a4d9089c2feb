// case: C-style matrix multiply with global device pointers where the cudaMalloc of d_B was left out: its upload and the kernel that reads it get a null pointer (DRACC 008 style)
// expect: unallocated_pointer=2
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

#define N 256
#define TILE 16

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

void init(void)
{
    a = (float *)malloc(N * N * sizeof(float));
    b = (float *)malloc(N * N * sizeof(float));
    c = (float *)malloc(N * N * sizeof(float));
    for (int i = 0; i < N * N; ++i) {
        a[i] = (float)(i % N);
        b[i] = (i % (N + 1) == 0) ? 1.0f : 0.0f;
    }
}

int main(void)
{
    init();

    cudaMalloc((void **)&d_A, N * N * sizeof(float));
    cudaMalloc((void **)&d_C, N * N * sizeof(float));

    cudaMemcpy(d_A, a, N * N * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(d_B, b, N * N * sizeof(float), cudaMemcpyHostToDevice); // EXPECT: unallocated_pointer

    dim3 threads(TILE, TILE);
    dim3 grid(N / TILE, N / TILE);
    matmul<<<grid, threads>>>(d_A, d_B, d_C, N); // EXPECT: unallocated_pointer
    cudaDeviceSynchronize();

    cudaMemcpy(c, d_C, N * N * sizeof(float), cudaMemcpyDeviceToHost);

    int errors = 0;
    for (int i = 0; i < N * N; ++i)
        if (c[i] != a[i]) ++errors;
    printf("%d mismatches\n", errors);

    cudaFree(d_A);
    cudaFree(d_B);
    cudaFree(d_C);
    free(a);
    free(b);
    free(c);
    return 0;
}

// case: A tiled matrix multiply wraps every call in CUDA_CHECK except the upload of matrix B, whose cudaMemcpy status is dropped.
// expect: unchecked_cuda_result=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define TILE 16
#define CUDA_CHECK(x)                                                          \
    do {                                                                       \
        cudaError_t rc = (x);                                                  \
        if (rc != cudaSuccess) {                                               \
            fprintf(stderr, "%s -> %s\n", #x, cudaGetErrorString(rc));         \
            exit(2);                                                           \
        }                                                                      \
    } while (0)

__global__ void matmul_tiled(const float* A, const float* B, float* C, int N) {
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int row = blockIdx.y * TILE + threadIdx.y;
    int col = blockIdx.x * TILE + threadIdx.x;
    float acc = 0.0f;
    for (int t = 0; t < N / TILE; ++t) {
        As[threadIdx.y][threadIdx.x] = A[row * N + t * TILE + threadIdx.x];
        Bs[threadIdx.y][threadIdx.x] = B[(t * TILE + threadIdx.y) * N + col];
        __syncthreads();
        for (int k = 0; k < TILE; ++k) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
        __syncthreads();
    }
    C[row * N + col] = acc;
}

int main() {
    const int N = 512;
    const size_t bytes = size_t(N) * N * sizeof(float);
    std::vector<float> A(N * N), B(N * N), C(N * N);
    for (int i = 0; i < N * N; ++i) {
        A[i] = float(i % 13) * 0.1f;
        B[i] = float(i % 7) * 0.2f;
    }

    float *dA, *dB, *dC;
    CUDA_CHECK(cudaMalloc(&dA, bytes));
    CUDA_CHECK(cudaMalloc(&dB, bytes));
    CUDA_CHECK(cudaMalloc(&dC, bytes));
    CUDA_CHECK(cudaMemcpy(dA, A.data(), bytes, cudaMemcpyHostToDevice));
    cudaMemcpy(dB, B.data(), bytes, cudaMemcpyHostToDevice);  // EXPECT: unchecked_cuda_result

    dim3 block(TILE, TILE);
    dim3 grid(N / TILE, N / TILE);
    matmul_tiled<<<grid, block>>>(dA, dB, dC, N);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpy(C.data(), dC, bytes, cudaMemcpyDeviceToHost));

    double trace = 0.0;
    for (int i = 0; i < N; ++i) trace += C[i * N + i];
    printf("trace(C) = %.3f\n", trace);

    CUDA_CHECK(cudaFree(dA));
    CUDA_CHECK(cudaFree(dB));
    CUDA_CHECK(cudaFree(dC));
    return 0;
}

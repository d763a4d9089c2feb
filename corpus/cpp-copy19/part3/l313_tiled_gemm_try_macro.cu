// case: a tiled GEMM wrapper uses a CUDA_TRY macro that returns false on error; any failure after its three cudaMallocs returns without freeing the matrices already allocated
// expect: device_memory_leak=3
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define N 1024
#define TILE 32

#define CUDA_TRY(call)                                                   \
    do {                                                                 \
        cudaError_t e = (call);                                          \
        if (e != cudaSuccess) {                                          \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,           \
                    cudaGetErrorString(e));                              \
            return false;                                                \
        }                                                                \
    } while (0)

__global__ void gemm_tiled(const float* A, const float* B, float* C, int n) {
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int row = blockIdx.y * TILE + threadIdx.y;
    int col = blockIdx.x * TILE + threadIdx.x;
    float acc = 0.f;
    for (int t = 0; t < n / TILE; ++t) {
        As[threadIdx.y][threadIdx.x] = A[row * n + t * TILE + threadIdx.x];
        Bs[threadIdx.y][threadIdx.x] = B[(t * TILE + threadIdx.y) * n + col];
        __syncthreads();
        for (int k = 0; k < TILE; ++k) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
        __syncthreads();
    }
    C[row * n + col] = acc;
}

bool gemm_gpu(const float* A, const float* B, float* C) {
    const size_t bytes = sizeof(float) * N * N;
    float *dA, *dB, *dC;
    CUDA_TRY(cudaMalloc(&dA, bytes)); // EXPECT: device_memory_leak
    CUDA_TRY(cudaMalloc(&dB, bytes)); // EXPECT: device_memory_leak
    CUDA_TRY(cudaMalloc(&dC, bytes)); // EXPECT: device_memory_leak

    CUDA_TRY(cudaMemcpy(dA, A, bytes, cudaMemcpyHostToDevice));
    CUDA_TRY(cudaMemcpy(dB, B, bytes, cudaMemcpyHostToDevice));

    dim3 block(TILE, TILE);
    dim3 grid(N / TILE, N / TILE);
    gemm_tiled<<<grid, block>>>(dA, dB, dC, N);
    CUDA_TRY(cudaGetLastError());
    CUDA_TRY(cudaMemcpy(C, dC, bytes, cudaMemcpyDeviceToHost));

    cudaFree(dA);
    cudaFree(dB);
    cudaFree(dC);
    return true;
}

int main() {
    std::vector<float> A(N * N), B(N * N), C(N * N);
    for (int i = 0; i < N * N; ++i) {
        A[i] = (float)(i % 7) * 0.1f;
        B[i] = (float)(i % 5) * 0.2f;
    }
    if (!gemm_gpu(A.data(), B.data(), C.data())) {
        fprintf(stderr, "gemm failed\n");
        return 1;
    }
    double ref = 0.0;
    for (int k = 0; k < N; ++k) ref += A[k] * B[k * N];
    printf("C[0][0] = %f (host %f)\n", C[0], ref);
    return 0;
}

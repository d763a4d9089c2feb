// case: tiled matrix multiply where the second upload was copy-pasted and still targets d_A, so d_B is never written before the kernel reads it.
// expect: uninitialized_device_read=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    printf("CUDA error %s at %s:%d\n", cudaGetErrorString(e), __FILE__, __LINE__); exit(1); } } while (0)

#define M 256
#define K 256
#define NCOLS 256
#define TILE 16

__global__ void matmul_tiled(const float* A, const float* B, float* C)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int row = blockIdx.y * TILE + threadIdx.y;
    int col = blockIdx.x * TILE + threadIdx.x;
    float acc = 0.0f;
    for (int t = 0; t < K / TILE; ++t) {
        As[threadIdx.y][threadIdx.x] = A[row * K + t * TILE + threadIdx.x];
        Bs[threadIdx.y][threadIdx.x] = B[(t * TILE + threadIdx.y) * NCOLS + col];
        __syncthreads();
        for (int k = 0; k < TILE; ++k)
            acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
        __syncthreads();
    }
    C[row * NCOLS + col] = acc;
}

int main()
{
    const size_t bytesA = M * K * sizeof(float);
    const size_t bytesB = K * NCOLS * sizeof(float);
    const size_t bytesC = M * NCOLS * sizeof(float);

    std::vector<float> hA(M * K), hB(K * NCOLS), hC(M * NCOLS);
    for (int i = 0; i < M * K; ++i) hA[i] = (i % 13) * 0.1f;
    for (int i = 0; i < K * NCOLS; ++i) hB[i] = (i % 7) * 0.2f;

    float *dA, *dB, *dC;
    CHECK(cudaMalloc(&dA, bytesA));
    CHECK(cudaMalloc(&dB, bytesB));
    CHECK(cudaMalloc(&dC, bytesC));

    CHECK(cudaMemcpy(dA, hA.data(), bytesA, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dA, hB.data(), bytesB, cudaMemcpyHostToDevice));

    dim3 block(TILE, TILE);
    dim3 grid(NCOLS / TILE, M / TILE);
    matmul_tiled<<<grid, block>>>(dA, dB, dC); // EXPECT: uninitialized_device_read
    CHECK(cudaGetLastError());

    CHECK(cudaMemcpy(hC.data(), dC, bytesC, cudaMemcpyDeviceToHost));
    double trace = 0.0;
    for (int i = 0; i < M; ++i) trace += hC[i * NCOLS + i];
    printf("trace(C) = %f\n", trace);

    CHECK(cudaFree(dA));
    CHECK(cudaFree(dB));
    CHECK(cudaFree(dC));
    return 0;
}

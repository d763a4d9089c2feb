// case: a naive SGEMM benchmark gets the argument order of cudaMemcpy backwards twice: uploading B (vector as device destination) and downloading C (device buffer as host destination).
// expect: memcpy_kind_mismatch=2
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

__global__ void sgemm(const float* A, const float* B, float* C, int N) {
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= N || col >= N) return;
    float acc = 0.f;
    for (int k = 0; k < N; ++k) acc += A[row * N + k] * B[k * N + col];
    C[row * N + col] = acc;
}

int main() {
    const int N = 1024;
    const size_t bytes = (size_t)N * N * sizeof(float);
    std::vector<float> A(N * N, 1.0f), B(N * N, 2.0f), C(N * N, 0.0f);

    float *dA, *dB, *dC;
    cudaMalloc(&dA, bytes);
    cudaMalloc(&dB, bytes);
    cudaMalloc(&dC, bytes);

    cudaMemcpy(dA, A.data(), bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(B.data(), dB, bytes, cudaMemcpyHostToDevice); // EXPECT: memcpy_kind_mismatch

    dim3 block(16, 16), grid(N / 16, N / 16);
    cudaEvent_t t0, t1;
    cudaEventCreate(&t0);
    cudaEventCreate(&t1);
    cudaEventRecord(t0);
    sgemm<<<grid, block>>>(dA, dB, dC, N);
    cudaEventRecord(t1);
    cudaEventSynchronize(t1);
    float ms;
    cudaEventElapsedTime(&ms, t0, t1);

    cudaMemcpy(dC, C.data(), bytes, cudaMemcpyDeviceToHost); // EXPECT: memcpy_kind_mismatch

    printf("C[0] = %f (expect %f), %.1f GFLOP/s\n", C[0], 2.0f * N,
           2.0 * N * N * N / (ms * 1e6));
    cudaEventDestroy(t0);
    cudaEventDestroy(t1);
    cudaFree(dA);
    cudaFree(dB);
    cudaFree(dC);
    return 0;
}

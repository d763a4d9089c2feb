// case: a cuBLAS SGEMM on a user stream followed by an async download into pinned memory; the host synchronizes the stream before checking C, so the read is ordered
// expect: none
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "cuda %s @%d\n", cudaGetErrorString(e_), __LINE__); exit(1); } } while (0)
#define CUBLAS_CHECK(x) do { cublasStatus_t s_ = (x); if (s_ != CUBLAS_STATUS_SUCCESS) { \
    fprintf(stderr, "cublas status %d @%d\n", (int)s_, __LINE__); exit(1); } } while (0)

int main() {
    const int M = 1024, N = 1024, K = 512;
    const float alpha = 1.f, beta = 0.f;

    cudaStream_t stream;
    cublasHandle_t handle;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    CUBLAS_CHECK(cublasCreate(&handle));
    CUBLAS_CHECK(cublasSetStream(handle, stream));

    float *hA, *hB, *hC;
    CUDA_CHECK(cudaMallocHost(&hA, sizeof(float) * M * K));
    CUDA_CHECK(cudaMallocHost(&hB, sizeof(float) * K * N));
    CUDA_CHECK(cudaMallocHost(&hC, sizeof(float) * M * N));
    for (int i = 0; i < M * K; ++i) hA[i] = 1.f;
    for (int i = 0; i < K * N; ++i) hB[i] = 2.f;

    float *dA, *dB, *dC;
    CUDA_CHECK(cudaMalloc(&dA, sizeof(float) * M * K));
    CUDA_CHECK(cudaMalloc(&dB, sizeof(float) * K * N));
    CUDA_CHECK(cudaMalloc(&dC, sizeof(float) * M * N));

    CUDA_CHECK(cudaMemcpyAsync(dA, hA, sizeof(float) * M * K, cudaMemcpyHostToDevice, stream));
    CUDA_CHECK(cudaMemcpyAsync(dB, hB, sizeof(float) * K * N, cudaMemcpyHostToDevice, stream));
    CUBLAS_CHECK(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K,
                             &alpha, dA, M, dB, K, &beta, dC, M));
    CUDA_CHECK(cudaMemcpyAsync(hC, dC, sizeof(float) * M * N, cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));

    int wrong = 0;
    for (int i = 0; i < M * N; ++i)
        if (hC[i] != 2.f * K) ++wrong;
    printf("%d wrong entries\n", wrong);

    CUDA_CHECK(cudaFree(dC));
    CUDA_CHECK(cudaFree(dB));
    CUDA_CHECK(cudaFree(dA));
    CUDA_CHECK(cudaFreeHost(hC));
    CUDA_CHECK(cudaFreeHost(hB));
    CUDA_CHECK(cudaFreeHost(hA));
    CUBLAS_CHECK(cublasDestroy(handle));
    CUDA_CHECK(cudaStreamDestroy(stream));
    return 0;
}

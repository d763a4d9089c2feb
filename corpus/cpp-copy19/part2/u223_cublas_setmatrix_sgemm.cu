// case: SGEMM through cuBLAS where cublasSetMatrix fills A and B, cublasSgemm writes C with beta = 0, and cublasGetMatrix reads C back; no buffer is read before a write.
// expect: none
#include <cuda_runtime.h>
#include <cublas_v2.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { std::printf("cuda %s\n", cudaGetErrorString(e)); std::exit(1); } } while (0)
#define CUBLAS_CHECK(x) do { cublasStatus_t s = (x); if (s != CUBLAS_STATUS_SUCCESS) { std::printf("cublas %d at %d\n", (int)s, __LINE__); std::exit(1); } } while (0)

#define DIM_M 512
#define DIM_N 384
#define DIM_K 256

int main()
{
    std::vector<float> A(DIM_M * DIM_K), B(DIM_K * DIM_N), C(DIM_M * DIM_N);
    for (int i = 0; i < DIM_M * DIM_K; ++i) A[i] = float(i % 11) / 11.0f;
    for (int i = 0; i < DIM_K * DIM_N; ++i) B[i] = float(i % 5) / 5.0f;

    float *dA, *dB, *dC;
    CUDA_CHECK(cudaMalloc(&dA, DIM_M * DIM_K * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&dB, DIM_K * DIM_N * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&dC, DIM_M * DIM_N * sizeof(float)));

    cublasHandle_t handle;
    CUBLAS_CHECK(cublasCreate(&handle));
    CUBLAS_CHECK(cublasSetMatrix(DIM_M, DIM_K, sizeof(float), A.data(), DIM_M, dA, DIM_M));
    CUBLAS_CHECK(cublasSetMatrix(DIM_K, DIM_N, sizeof(float), B.data(), DIM_K, dB, DIM_K));

    const float alpha = 1.0f, beta = 0.0f;
    CUBLAS_CHECK(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, DIM_M, DIM_N, DIM_K,
                             &alpha, dA, DIM_M, dB, DIM_K, &beta, dC, DIM_M));

    CUBLAS_CHECK(cublasGetMatrix(DIM_M, DIM_N, sizeof(float), dC, DIM_M, C.data(), DIM_M));
    std::printf("C[0,0] = %f\n", C[0]);

    CUBLAS_CHECK(cublasDestroy(handle));
    CUDA_CHECK(cudaFree(dA));
    CUDA_CHECK(cudaFree(dB));
    CUDA_CHECK(cudaFree(dC));
    return 0;
}

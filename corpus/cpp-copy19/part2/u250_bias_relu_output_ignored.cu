// case: an MLP layer runs cublasSgemm into d_Z and a bias+ReLU kernel into d_A, but the host copies back d_Z, so the activations the kernel wrote are freed unread.
// expect: unread_kernel_output=1
#include <cuda_runtime.h>
#include <cublas_v2.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { std::printf("cuda: %s\n", cudaGetErrorString(e)); std::exit(1); } } while (0)
#define CUBLAS_CHECK(x) do { if ((x) != CUBLAS_STATUS_SUCCESS) { std::printf("cublas error line %d\n", __LINE__); std::exit(1); } } while (0)

constexpr int kIn = 784, kOut = 256, kBatch = 128;

__global__ void bias_relu(const float* Z, const float* bias, float* A, int rows, int cols)
{
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < rows * cols) {
        float v = Z[idx] + bias[idx % rows];
        A[idx] = v > 0.f ? v : 0.f;
    }
}

int main()
{
    std::vector<float> W(kOut * kIn, 0.001f), X(kIn * kBatch, 1.0f), b(kOut, -0.5f), out(kOut * kBatch);

    float *dW, *dX, *db, *dZ, *dA;
    CUDA_CHECK(cudaMalloc(&dW, W.size() * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&dX, X.size() * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&db, b.size() * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&dZ, kOut * kBatch * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&dA, kOut * kBatch * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(dW, W.data(), W.size() * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(dX, X.data(), X.size() * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(db, b.data(), b.size() * sizeof(float), cudaMemcpyHostToDevice));

    cublasHandle_t h;
    CUBLAS_CHECK(cublasCreate(&h));
    const float one = 1.f, zero = 0.f;
    CUBLAS_CHECK(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, kOut, kBatch, kIn, &one, dW, kOut, dX, kIn, &zero, dZ, kOut));

    bias_relu<<<(kOut * kBatch + 255) / 256, 256>>>(dZ, db, dA, kOut, kBatch);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpy(out.data(), dZ, out.size() * sizeof(float), cudaMemcpyDeviceToHost));

    int active = 0;
    for (float v : out) active += v > 0.f;
    std::printf("active units: %d of %zu\n", active, out.size());

    CUBLAS_CHECK(cublasDestroy(h));
    CUDA_CHECK(cudaFree(dW));
    CUDA_CHECK(cudaFree(dX));
    CUDA_CHECK(cudaFree(db));
    CUDA_CHECK(cudaFree(dZ));
    CUDA_CHECK(cudaFree(dA)); // EXPECT: unread_kernel_output
    return 0;
}

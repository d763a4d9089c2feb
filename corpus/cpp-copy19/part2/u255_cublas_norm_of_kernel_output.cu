// case: a residual vector written by a custom kernel is read by cublasSnrm2 (a library call that receives the pointer) to get the residual norm before the buffer is freed.
// expect: none
#include <cuda_runtime.h>
#include <cublas_v2.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { std::printf("cuda: %s\n", cudaGetErrorString(e)); std::exit(1); } } while (0)
#define CUBLAS_CHECK(x) do { if ((x) != CUBLAS_STATUS_SUCCESS) { std::printf("cublas failure line %d\n", __LINE__); std::exit(1); } } while (0)

constexpr int kN = 1 << 20;

__global__ void laplace_residual(const float* u, const float* f, float* r, int n, float inv_h2)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float l = i > 0 ? u[i - 1] : 0.f, rr = i < n - 1 ? u[i + 1] : 0.f;
    r[i] = f[i] - (2.f * u[i] - l - rr) * inv_h2;
}

int main()
{
    std::vector<float> u(kN, 0.f), f(kN, 1.f);
    const float h = 1.0f / (kN + 1);

    float *d_u, *d_f, *d_r;
    CUDA_CHECK(cudaMalloc(&d_u, kN * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_f, kN * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_r, kN * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(d_u, u.data(), kN * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_f, f.data(), kN * sizeof(float), cudaMemcpyHostToDevice));

    laplace_residual<<<(kN + 255) / 256, 256>>>(d_u, d_f, d_r, kN, 1.0f / (h * h));
    CUDA_CHECK(cudaGetLastError());

    cublasHandle_t handle;
    CUBLAS_CHECK(cublasCreate(&handle));
    float rnorm = 0.f;
    CUBLAS_CHECK(cublasSnrm2(handle, kN, d_r, 1, &rnorm));
    std::printf("||r||_2 = %g\n", rnorm);
    CUBLAS_CHECK(cublasDestroy(handle));
    CUDA_CHECK(cudaDeviceSynchronize());

    CUDA_CHECK(cudaFree(d_u));
    CUDA_CHECK(cudaFree(d_f));
    CUDA_CHECK(cudaFree(d_r));
    return 0;
}

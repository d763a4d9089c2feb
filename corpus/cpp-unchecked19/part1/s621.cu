// case: An L2 vector normaliser uses its project's CUDA_SAFE_CALL and CHECK_LAUNCH macros from cuda_utils.h, a header that is not in the file, around every call and after every launch.
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include "cuda_utils.h"  // CUDA_SAFE_CALL(call), CHECK_LAUNCH()

__global__ void sum_squares(const float* v, int n, float* acc) {
    __shared__ float part[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    part[threadIdx.x] = (i < n) ? v[i] * v[i] : 0.0f;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) part[threadIdx.x] += part[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) atomicAdd(acc, part[0]);
}

__global__ void divide_by_norm(float* v, int n, const float* acc) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) v[i] = v[i] * rsqrtf(*acc);
}

int main() {
    const int n = 3 << 20;
    const int threads = 256, blocks = (n + threads - 1) / threads;
    std::vector<float> v(n);
    for (int i = 0; i < n; ++i) v[i] = float((i % 9) - 4);

    float *d_v = nullptr, *d_acc = nullptr;
    CUDA_SAFE_CALL(cudaMalloc(&d_v, n * sizeof(float)));
    CUDA_SAFE_CALL(cudaMalloc(&d_acc, sizeof(float)));
    CUDA_SAFE_CALL(cudaMemcpy(d_v, v.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_SAFE_CALL(cudaMemset(d_acc, 0, sizeof(float)));

    sum_squares<<<blocks, threads>>>(d_v, n, d_acc);
    CHECK_LAUNCH();
    divide_by_norm<<<blocks, threads>>>(d_v, n, d_acc);
    CHECK_LAUNCH();
    CUDA_SAFE_CALL(cudaDeviceSynchronize());

    CUDA_SAFE_CALL(cudaMemcpy(v.data(), d_v, n * sizeof(float), cudaMemcpyDeviceToHost));
    double norm2 = 0.0;
    for (float x : v) norm2 += double(x) * x;
    printf("squared norm after normalising: %.6f\n", norm2);

    CUDA_SAFE_CALL(cudaFree(d_acc));
    CUDA_SAFE_CALL(cudaFree(d_v));
    return 0;
}

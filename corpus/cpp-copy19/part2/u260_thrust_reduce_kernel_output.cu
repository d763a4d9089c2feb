// case: per-element squared errors written by a kernel are summed with thrust::reduce over a device_ptr (a library call reads them) before the buffer is freed.
// expect: none
#include <cuda_runtime.h>
#include <thrust/device_ptr.h>
#include <thrust/reduce.h>
#include <thrust/execution_policy.h>
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <vector>

#define CUDA_CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    std::fprintf(stderr, "%s\n", cudaGetErrorString(e)); std::exit(1); } } while (0)

constexpr int kN = 1 << 21;

__global__ void squared_error(const float* pred, const float* target, float* err, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float d = pred[i] - target[i];
        err[i] = d * d;
    }
}

int main()
{
    std::vector<float> pred(kN), target(kN);
    for (int i = 0; i < kN; ++i) {
        target[i] = std::sin(i * 0.001f);
        pred[i] = target[i] + ((i % 3) - 1) * 0.01f;
    }

    float *d_pred, *d_target, *d_err;
    CUDA_CHECK(cudaMalloc(&d_pred, kN * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_target, kN * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_err, kN * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(d_pred, pred.data(), kN * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_target, target.data(), kN * sizeof(float), cudaMemcpyHostToDevice));

    squared_error<<<(kN + 255) / 256, 256>>>(d_pred, d_target, d_err, kN);
    CUDA_CHECK(cudaGetLastError());

    thrust::device_ptr<float> err = thrust::device_pointer_cast(d_err);
    float sse = thrust::reduce(thrust::device, err, err + kN, 0.0f);
    std::printf("MSE = %g\n", sse / kN);
    CUDA_CHECK(cudaDeviceSynchronize());

    CUDA_CHECK(cudaFree(d_pred));
    CUDA_CHECK(cudaFree(d_target));
    CUDA_CHECK(cudaFree(d_err));
    return 0;
}

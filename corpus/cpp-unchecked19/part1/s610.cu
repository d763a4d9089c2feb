// case: A SAXPY program uploads its two inputs through a small lambda that drops cudaMemcpy's status; the launch and the rest are checked.
// expect: unchecked_cuda_result=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK_CUDA(call)                                                       \
    do {                                                                       \
        const cudaError_t s_ = (call);                                         \
        if (s_ != cudaSuccess) {                                               \
            fprintf(stderr, "%s failed (%s)\n", #call, cudaGetErrorName(s_));  \
            abort();                                                           \
        }                                                                      \
    } while (0)

__global__ void saxpy(int n, float a, const float* x, float* y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

int main() {
    const int n = 1 << 22;
    const size_t bytes = n * sizeof(float);
    std::vector<float> x(n), y(n);
    for (int i = 0; i < n; ++i) {
        x[i] = 1.0f;
        y[i] = 2.0f;
    }

    float *d_x = nullptr, *d_y = nullptr;
    CHECK_CUDA(cudaMalloc(&d_x, bytes));
    CHECK_CUDA(cudaMalloc(&d_y, bytes));

    auto to_device = [bytes](float* dst, const std::vector<float>& src) {
        cudaMemcpy(dst, src.data(), bytes, cudaMemcpyHostToDevice);  // EXPECT: unchecked_cuda_result
    };
    to_device(d_x, x);
    to_device(d_y, y);

    saxpy<<<(n + 511) / 512, 512>>>(n, 3.0f, d_x, d_y);
    CHECK_CUDA(cudaGetLastError());
    CHECK_CUDA(cudaMemcpy(y.data(), d_y, bytes, cudaMemcpyDeviceToHost));

    float max_err = 0.0f;
    for (int i = 0; i < n; ++i) {
        float e = y[i] > 5.0f ? y[i] - 5.0f : 5.0f - y[i];
        if (e > max_err) max_err = e;
    }
    printf("max error: %f\n", max_err);

    CHECK_CUDA(cudaFree(d_x));
    CHECK_CUDA(cudaFree(d_y));
    return 0;
}

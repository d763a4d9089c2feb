// case: transformer block's fused add+GELU kernel called with residual = nullptr for the first layer, but the kernel reads residual[i] without ever testing it for null
// expect: unallocated_pointer=1
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                    \
    do {                                                                    \
        cudaError_t e_ = (call);                                            \
        if (e_ != cudaSuccess) {                                            \
            std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
            std::exit(EXIT_FAILURE);                                        \
        }                                                                   \
    } while (0)

constexpr int kTokens = 128;
constexpr int kWidth = 1024;
constexpr int kElems = kTokens * kWidth;

__device__ __forceinline__ float gelu(float x)
{
    return 0.5f * x * (1.f + tanhf(0.7978845608f * (x + 0.044715f * x * x * x)));
}

// out = gelu(x + bias) + residual
__global__ void bias_gelu_residual(const float *x, const float *bias, const float *residual,
                                   float *out, int n, int width)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    out[i] = gelu(x[i] + bias[i % width]) + residual[i];
}

int main()
{
    std::vector<float> h_x(kElems), h_bias(kWidth, 0.01f), h_out(kElems);
    for (int i = 0; i < kElems; ++i) h_x[i] = std::sin(0.001f * i);

    float *d_x, *d_bias, *d_out;
    CUDA_CHECK(cudaMalloc(&d_x, kElems * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_bias, kWidth * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_out, kElems * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(d_x, h_x.data(), kElems * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_bias, h_bias.data(), kWidth * sizeof(float), cudaMemcpyHostToDevice));

    const float *residual = nullptr; // first block: no skip connection yet
    bias_gelu_residual<<<(kElems + 255) / 256, 256>>>(d_x, d_bias, residual, d_out, kElems, kWidth); // EXPECT: unallocated_pointer
    CUDA_CHECK(cudaGetLastError());

    CUDA_CHECK(cudaMemcpy(h_out.data(), d_out, kElems * sizeof(float), cudaMemcpyDeviceToHost));
    double s = 0.0;
    for (float v : h_out) s += v;
    std::printf("sum %.4f\n", s);

    CUDA_CHECK(cudaFree(d_x));
    CUDA_CHECK(cudaFree(d_bias));
    CUDA_CHECK(cudaFree(d_out));
    return 0;
}

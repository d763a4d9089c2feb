// case: fully connected layer whose kernel takes an optional bias and tests it with `if (bias != nullptr)`; the bias-free layer passes nullptr, which the kernel never dereferences
// expect: none
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

constexpr int kBatch = 64;
constexpr int kIn = 512;
constexpr int kOut = 256;

__global__ void linear(const float *x, const float *w, const float *bias, float *y,
                       int in_dim, int out_dim)
{
    int b = blockIdx.y;
    int o = blockIdx.x * blockDim.x + threadIdx.x;
    if (o >= out_dim) return;
    float acc = 0.0f;
    for (int i = 0; i < in_dim; ++i) acc += x[b * in_dim + i] * w[o * in_dim + i];
    if (bias != nullptr) acc += bias[o];
    y[b * out_dim + o] = acc;
}

struct Linear {
    float *w = nullptr;
    float *bias = nullptr;
};

int main()
{
    std::vector<float> h_x(kBatch * kIn), h_w(kOut * kIn), h_y(kBatch * kOut);
    for (size_t i = 0; i < h_x.size(); ++i) h_x[i] = float(i % 17) * 0.01f;
    for (size_t i = 0; i < h_w.size(); ++i) h_w[i] = float(int(i % 13) - 6) * 0.005f;

    Linear proj;  // projection layer without bias
    float *d_x, *d_y;
    CUDA_CHECK(cudaMalloc(&d_x, h_x.size() * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_y, h_y.size() * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&proj.w, h_w.size() * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(d_x, h_x.data(), h_x.size() * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(proj.w, h_w.data(), h_w.size() * sizeof(float), cudaMemcpyHostToDevice));

    const float *no_bias = nullptr;
    linear<<<dim3((kOut + 127) / 128, kBatch), 128>>>(d_x, proj.w, no_bias, d_y, kIn, kOut);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpy(h_y.data(), d_y, h_y.size() * sizeof(float), cudaMemcpyDeviceToHost));

    double s = 0.0;
    for (float v : h_y) s += v;
    std::printf("output sum %.5f\n", s);

    CUDA_CHECK(cudaFree(d_x));
    CUDA_CHECK(cudaFree(d_y));
    CUDA_CHECK(cudaFree(proj.w));
    CUDA_CHECK(cudaFree(proj.bias));
    return 0;
}

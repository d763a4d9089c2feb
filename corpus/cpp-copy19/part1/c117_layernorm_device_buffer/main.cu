// case: transformer layer-norm built on a templated RAII DeviceBuffer (header); the beta upload uses the FFN hidden size (4x the model width), copying past the kModel-float beta buffer and host vector
// expect: copy_out_of_bounds=1
#include <cmath>
#include <vector>
#include "device_buffer.cuh"

constexpr int kTokens = 512;
constexpr int kModel = 768;
constexpr int kHidden = 4 * kModel;

__global__ void layer_norm(const float *x, const float *gamma, const float *beta,
                           float *y, int cols)
{
    int row = blockIdx.x;
    const float *xr = x + row * cols;
    float mean = 0.f, var = 0.f;
    for (int c = 0; c < cols; ++c) mean += xr[c];
    mean /= cols;
    for (int c = 0; c < cols; ++c) var += (xr[c] - mean) * (xr[c] - mean);
    float rstd = rsqrtf(var / cols + 1e-5f);
    for (int c = threadIdx.x; c < cols; c += blockDim.x)
        y[row * cols + c] = (xr[c] - mean) * rstd * gamma[c] + beta[c];
}

int main()
{
    std::vector<float> h_x(kTokens * kModel), h_y(kTokens * kModel);
    std::vector<float> h_gamma(kModel, 1.0f), h_beta(kModel, 0.0f);
    for (size_t i = 0; i < h_x.size(); ++i) h_x[i] = std::sin(0.01f * float(i));

    DeviceBuffer<float> x(kTokens * kModel);
    DeviceBuffer<float> y(kTokens * kModel);
    DeviceBuffer<float> gamma(kModel);
    DeviceBuffer<float> beta(kModel);

    CUDA_CHECK(cudaMemcpy(x.data(), h_x.data(), kTokens * kModel * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(gamma.data(), h_gamma.data(), kModel * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(beta.data(), h_beta.data(), kHidden * sizeof(float), cudaMemcpyHostToDevice)); // EXPECT: copy_out_of_bounds

    layer_norm<<<kTokens, 128>>>(x.data(), gamma.data(), beta.data(), y.data(), kModel);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpy(h_y.data(), y.data(), kTokens * kModel * sizeof(float), cudaMemcpyDeviceToHost));

    double s = 0.0;
    for (float v : h_y) s += v;
    std::printf("sum of normalized activations %.4f\n", s);
    return 0;
}

// case: a batched layer-norm wraps each cudaMalloc in std::unique_ptr with a cudaFree deleter right away, so the early returns on copy failure release everything
// expect: none
#include <cmath>
#include <cstdio>
#include <memory>
#include <vector>
#include <cuda_runtime.h>

struct CudaFreeDeleter {
    void operator()(void* p) const noexcept { cudaFree(p); }
};

template <typename T>
using device_ptr = std::unique_ptr<T, CudaFreeDeleter>;

template <typename T>
device_ptr<T> device_alloc(size_t n) {
    T* raw = nullptr;
    if (cudaMalloc(&raw, n * sizeof(T)) != cudaSuccess) return device_ptr<T>();
    return device_ptr<T>(raw);
}

constexpr int kHidden = 768;
constexpr int kTokens = 2048;
constexpr float kEps = 1e-5f;

__global__ void layer_norm(const float* x, const float* gamma, const float* beta, float* y,
                           int hidden) {
    const float* xr = x + blockIdx.x * hidden;
    float* yr = y + blockIdx.x * hidden;
    float mean = 0.f, var = 0.f;
    for (int i = 0; i < hidden; ++i) mean += xr[i];
    mean /= hidden;
    for (int i = 0; i < hidden; ++i) var += (xr[i] - mean) * (xr[i] - mean);
    float inv = rsqrtf(var / hidden + kEps);
    for (int i = threadIdx.x; i < hidden; i += blockDim.x)
        yr[i] = (xr[i] - mean) * inv * gamma[i] + beta[i];
}

bool run_layer_norm(const std::vector<float>& x, std::vector<float>& y) {
    auto d_x = device_alloc<float>(kTokens * kHidden);
    auto d_y = device_alloc<float>(kTokens * kHidden);
    auto d_gamma = device_alloc<float>(kHidden);
    auto d_beta = device_alloc<float>(kHidden);
    if (!d_x || !d_y || !d_gamma || !d_beta) return false;

    std::vector<float> gamma(kHidden, 1.0f), beta(kHidden, 0.0f);
    if (cudaMemcpy(d_x.get(), x.data(), sizeof(float) * kTokens * kHidden,
                   cudaMemcpyHostToDevice) != cudaSuccess)
        return false;
    if (cudaMemcpy(d_gamma.get(), gamma.data(), sizeof(float) * kHidden,
                   cudaMemcpyHostToDevice) != cudaSuccess)
        return false;
    if (cudaMemcpy(d_beta.get(), beta.data(), sizeof(float) * kHidden,
                   cudaMemcpyHostToDevice) != cudaSuccess)
        return false;

    layer_norm<<<kTokens, 256>>>(d_x.get(), d_gamma.get(), d_beta.get(), d_y.get(), kHidden);
    return cudaMemcpy(y.data(), d_y.get(), sizeof(float) * kTokens * kHidden,
                      cudaMemcpyDeviceToHost) == cudaSuccess;
}

int main() {
    std::vector<float> x(kTokens * kHidden), y(kTokens * kHidden);
    for (size_t i = 0; i < x.size(); ++i) x[i] = sinf(0.001f * i);
    if (!run_layer_norm(x, y)) {
        fprintf(stderr, "layer norm failed\n");
        return 1;
    }
    double m = 0.0;
    for (int i = 0; i < kHidden; ++i) m += y[i];
    printf("token 0 mean after norm: %.6f\n", m / kHidden);
    return 0;
}

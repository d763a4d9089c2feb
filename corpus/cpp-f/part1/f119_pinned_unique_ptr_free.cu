// case: a Monte-Carlo option pricer wraps its cudaHostAlloc'd payoff buffer in a std::unique_ptr whose deleter calls std::free, so the pinned memory is released by the C heap instead of cudaFreeHost.
// expect: mismatched_free=1
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>

#define CUDA_CHECK(call) do { cudaError_t err_ = (call); if (err_ != cudaSuccess) { \
    std::fprintf(stderr, "CUDA: %s @ %s:%d\n", cudaGetErrorString(err_), __FILE__, __LINE__); std::exit(1); } } while (0)

struct FreeDeleter {
    void operator()(void* p) const noexcept { std::free(p); }
};
template <typename T>
using host_buffer = std::unique_ptr<T[], FreeDeleter>;

struct CudaDeleter {
    void operator()(void* p) const noexcept { cudaFree(p); }
};
template <typename T>
using device_buffer = std::unique_ptr<T[], CudaDeleter>;

__global__ void price_paths(float* payoff, int paths, int steps, float s0, float strike,
                            float r, float sigma, float T, unsigned long long seed) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= paths) return;
    float dt = T / steps, s = s0;
    unsigned long long x = seed ^ (0x9E3779B97F4A7C15ull * (i + 1));
    for (int k = 0; k < steps; ++k) {
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        float u1 = ((x & 0xffffff) + 1) / 16777217.f, u2 = ((x >> 24) & 0xffffff) / 16777216.f;
        float z = sqrtf(-2.f * logf(u1)) * cospif(2.f * u2);
        s *= expf((r - 0.5f * sigma * sigma) * dt + sigma * sqrtf(dt) * z);
    }
    payoff[i] = fmaxf(s - strike, 0.f);
}

static host_buffer<float> alloc_pinned_floats(size_t n) {
    float* raw = nullptr;
    CUDA_CHECK(cudaHostAlloc(&raw, n * sizeof(float), cudaHostAllocDefault));
    return host_buffer<float>(raw);
}

int main() {
    const int paths = 1 << 20, steps = 252;
    const float s0 = 100.f, strike = 105.f, r = 0.03f, sigma = 0.2f, T = 1.f;

    host_buffer<float> h_payoff = alloc_pinned_floats(paths);
    float* raw_dev = nullptr;
    CUDA_CHECK(cudaMalloc(&raw_dev, paths * sizeof(float)));
    device_buffer<float> d_payoff(raw_dev);

    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreate(&s));
    price_paths<<<(paths + 255) / 256, 256, 0, s>>>(d_payoff.get(), paths, steps, s0, strike, r, sigma, T, 42ull);
    CUDA_CHECK(cudaMemcpyAsync(h_payoff.get(), d_payoff.get(), paths * sizeof(float), cudaMemcpyDeviceToHost, s));
    CUDA_CHECK(cudaStreamSynchronize(s));

    double sum = 0.0;
    for (int i = 0; i < paths; ++i) sum += h_payoff[i];
    std::printf("European call ~ %.4f\n", std::exp(-r * T) * sum / paths);

    CUDA_CHECK(cudaStreamDestroy(s));
    return 0;   // h_payoff's deleter runs std::free on pinned memory
}

// case: a Monte Carlo option pricer shares its device path buffer between two pricing passes through std::shared_ptr with a lambda deleter that calls cudaFree, and a per-pass payoff buffer the same way
// expect: none
#include <cmath>
#include <cstdio>
#include <memory>
#include <vector>
#include <cuda_runtime.h>

constexpr int kPaths = 1 << 20;
constexpr float kS0 = 100.f, kR = 0.05f, kSigma = 0.2f, kT = 1.0f;

template <typename T>
std::shared_ptr<T> make_device_shared(size_t n) {
    T* p = nullptr;
    if (cudaMalloc(&p, n * sizeof(T)) != cudaSuccess) return nullptr;
    return std::shared_ptr<T>(p, [](T* q) { cudaFree(q); });
}

__device__ float hash_normal(unsigned i) {
    unsigned a = i * 747796405u + 2891336453u, b = (a ^ (a >> 13)) * 1274126177u;
    float u1 = ((a >> 8) + 1) / 16777217.f, u2 = ((b >> 8) + 1) / 16777217.f;
    return sqrtf(-2.f * logf(u1)) * cosf(6.2831853f * u2);
}

__global__ void simulate_terminal(float* st, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        st[i] = kS0 * expf((kR - 0.5f * kSigma * kSigma) * kT + kSigma * sqrtf(kT) * hash_normal(i));
}

__global__ void payoff(const float* st, float* pay, int n, float strike, bool call) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) pay[i] = call ? fmaxf(st[i] - strike, 0.f) : fmaxf(strike - st[i], 0.f);
}

static float price(const std::shared_ptr<float>& paths, float strike, bool call) {
    auto d_pay = make_device_shared<float>(kPaths);
    if (!d_pay) return NAN;
    payoff<<<(kPaths + 255) / 256, 256>>>(paths.get(), d_pay.get(), kPaths, strike, call);
    std::vector<float> h(kPaths);
    cudaMemcpy(h.data(), d_pay.get(), kPaths * sizeof(float), cudaMemcpyDeviceToHost);
    double s = 0.0;
    for (float v : h) s += v;
    return expf(-kR * kT) * (float)(s / kPaths);
}

int main() {
    auto d_paths = make_device_shared<float>(kPaths);
    if (!d_paths) {
        fprintf(stderr, "allocation failed\n");
        return 1;
    }
    simulate_terminal<<<(kPaths + 255) / 256, 256>>>(d_paths.get(), kPaths);
    std::shared_ptr<float> view = d_paths;

    for (float k : {90.f, 100.f, 110.f}) {
        float c = price(view, k, true);
        float p = price(d_paths, k, false);
        printf("K=%.0f call=%.4f put=%.4f parity=%.4f\n", k, c, p,
               c - p - (kS0 - k * expf(-kR * kT)));
    }
    return 0;
}

// case: A GRU-style gate evaluator uploads its parameters with copy-pasted cudaMemcpy lines: the recurrent weights d_u are never uploaded (the bias is copied twice), so the gate kernel reads cudaMalloc'd d_u that nothing wrote (uninitialized_device_read at the launch).
// expect: uninitialized_device_read=1
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#define CUDA_CHECK(x)                                                              \
    do {                                                                           \
        cudaError_t e_ = (x);                                                      \
        if (e_ != cudaSuccess) {                                                   \
            std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,                \
                         cudaGetErrorString(e_));                                  \
            std::exit(EXIT_FAILURE);                                               \
        }                                                                          \
    } while (0)

constexpr int kInput = 512;
constexpr int kHidden = 1024;

// z = sigmoid(W x + U h + b), h' = (1 - z) * h + z * tanh(W x)
__global__ void gate_update(const float* __restrict__ W, const float* __restrict__ U,
                            const float* __restrict__ b, const float* __restrict__ x,
                            const float* __restrict__ h, float* __restrict__ h_next) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= kHidden) return;
    float wx = 0.0f, uh = 0.0f;
    for (int i = 0; i < kInput; ++i) wx += W[j * kInput + i] * x[i];
    for (int i = 0; i < kHidden; ++i) uh += U[j * kHidden + i] * h[i];
    float z = 1.0f / (1.0f + expf(-(wx + uh + b[j])));
    h_next[j] = (1.0f - z) * h[j] + z * tanhf(wx);
}

int main() {
    std::mt19937 rng(3);
    std::uniform_real_distribution<float> dist(-0.05f, 0.05f);
    std::vector<float> W(kHidden * kInput), U(kHidden * kHidden), b(kHidden), x(kInput), h(kHidden, 0.0f);
    for (auto& v : W) v = dist(rng);
    for (auto& v : U) v = dist(rng);
    for (auto& v : b) v = dist(rng);
    for (auto& v : x) v = dist(rng) * 10.0f;

    float *d_w, *d_u, *d_b, *d_x, *d_h, *d_h_next;
    CUDA_CHECK(cudaMalloc(&d_w, W.size() * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_u, U.size() * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_b, b.size() * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_x, x.size() * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_h, h.size() * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_h_next, h.size() * sizeof(float)));

    CUDA_CHECK(cudaMemcpy(d_w, W.data(), W.size() * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_b, b.data(), b.size() * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_b, b.data(), b.size() * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_x, x.data(), x.size() * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_h, h.data(), h.size() * sizeof(float), cudaMemcpyHostToDevice));

    gate_update<<<(kHidden + 127) / 128, 128>>>(d_w, d_u, d_b, d_x, d_h, d_h_next);  // EXPECT: uninitialized_device_read
    CUDA_CHECK(cudaGetLastError());

    std::vector<float> h_next(kHidden);
    CUDA_CHECK(cudaMemcpy(h_next.data(), d_h_next, h_next.size() * sizeof(float), cudaMemcpyDeviceToHost));
    double norm = 0.0;
    for (float v : h_next) norm += double(v) * v;
    std::printf("|h_next| = %.6f\n", std::sqrt(norm));

    CUDA_CHECK(cudaFree(d_h_next));
    CUDA_CHECK(cudaFree(d_h));
    CUDA_CHECK(cudaFree(d_x));
    CUDA_CHECK(cudaFree(d_b));
    CUDA_CHECK(cudaFree(d_u));
    CUDA_CHECK(cudaFree(d_w));
    return 0;
}

// case: a linear-regression training step whose backward kernel writes weight and bias gradients, but only the weight update kernel is launched, so d_grad_b is freed without anything reading it.
// expect: unread_kernel_output=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); std::exit(1); } } while (0)

#define SAMPLES 8192
#define FEATURES 64

__global__ void backward(const float* X, const float* y, const float* w, const float* b,
                         float* grad_w, float* grad_b, int n, int f)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j > f) return;
    float g = 0.f;
    for (int s = 0; s < n; ++s) {
        float pred = *b;
        for (int k = 0; k < f; ++k) pred += X[s * f + k] * w[k];
        float err = pred - y[s];
        g += (j < f) ? err * X[s * f + j] : err;
    }
    if (j < f) grad_w[j] = g / n;
    else *grad_b = g / n;
}

__global__ void sgd_update(float* param, const float* grad, float lr, int count)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count) param[i] -= lr * grad[i];
}

struct Model {
    float *d_w, *d_b, *d_grad_w, *d_grad_b;
};

int main()
{
    std::vector<float> X(SAMPLES * FEATURES), y(SAMPLES), w(FEATURES, 0.f);
    for (int i = 0; i < SAMPLES * FEATURES; ++i) X[i] = float((i * 7) % 13) / 13.f;
    for (int s = 0; s < SAMPLES; ++s) y[s] = 1.0f + X[s * FEATURES];
    const float b0 = 0.f;

    float *d_X, *d_y;
    Model m;
    CUDA_CHECK(cudaMalloc(&d_X, X.size() * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_y, y.size() * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&m.d_w, FEATURES * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&m.d_b, sizeof(float)));
    CUDA_CHECK(cudaMalloc(&m.d_grad_w, FEATURES * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&m.d_grad_b, sizeof(float)));
    CUDA_CHECK(cudaMemcpy(d_X, X.data(), X.size() * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_y, y.data(), y.size() * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(m.d_w, w.data(), FEATURES * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(m.d_b, &b0, sizeof(float), cudaMemcpyHostToDevice));

    backward<<<1, FEATURES + 1>>>(d_X, d_y, m.d_w, m.d_b, m.d_grad_w, m.d_grad_b, SAMPLES, FEATURES);
    sgd_update<<<1, FEATURES>>>(m.d_w, m.d_grad_w, 0.1f, FEATURES);
    CUDA_CHECK(cudaGetLastError());

    float b_after = 0.f;
    CUDA_CHECK(cudaMemcpy(w.data(), m.d_w, FEATURES * sizeof(float), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(&b_after, m.d_b, sizeof(float), cudaMemcpyDeviceToHost));
    std::printf("w[0] = %f, b = %f\n", w[0], b_after);

    CUDA_CHECK(cudaFree(d_X));
    CUDA_CHECK(cudaFree(d_y));
    CUDA_CHECK(cudaFree(m.d_w));
    CUDA_CHECK(cudaFree(m.d_b));
    CUDA_CHECK(cudaFree(m.d_grad_w));
    CUDA_CHECK(cudaFree(m.d_grad_b)); // EXPECT: unread_kernel_output
    return 0;
}

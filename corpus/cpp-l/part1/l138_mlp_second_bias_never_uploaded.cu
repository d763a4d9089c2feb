// case: a two-layer MLP forward pass uploads its parameters layer by layer, but the copy-pasted bias upload of the second layer targets fc1's bias again, so fc2.d_bias is never written before the second linear kernel reads it.
// expect: uninitialized_device_read=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(call)                                                         \
    do {                                                                         \
        cudaError_t e = (call);                                                  \
        if (e != cudaSuccess) {                                                  \
            fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); \
            exit(1);                                                             \
        }                                                                        \
    } while (0)

struct Linear {
    int in, out;
    float* d_weight;  // [out, in]
    float* d_bias;    // [out]
};

static Linear make_linear(int in, int out) {
    Linear l{in, out, nullptr, nullptr};
    CUDA_CHECK(cudaMalloc(&l.d_weight, size_t(in) * out * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&l.d_bias, size_t(out) * sizeof(float)));
    return l;
}

static void free_linear(Linear& l) {
    CUDA_CHECK(cudaFree(l.d_weight));
    CUDA_CHECK(cudaFree(l.d_bias));
}

__global__ void linear_fwd(const float* x, const float* w, const float* b, float* y, int batch, int in,
                           int out, int relu) {
    int o = blockIdx.x * blockDim.x + threadIdx.x;
    int n = blockIdx.y;
    if (o >= out || n >= batch) return;
    float acc = b[o];
    for (int k = 0; k < in; ++k) acc += x[size_t(n) * in + k] * w[size_t(o) * in + k];
    y[size_t(n) * out + o] = relu ? fmaxf(acc, 0.f) : acc;
}

int main() {
    const int batch = 256, d_in = 784, d_hidden = 512, d_out = 10;

    std::vector<float> w1(size_t(d_hidden) * d_in), b1(d_hidden), w2(size_t(d_out) * d_hidden), b2(d_out);
    for (size_t i = 0; i < w1.size(); ++i) w1[i] = float(i % 11) * 1e-3f;
    for (size_t i = 0; i < b1.size(); ++i) b1[i] = 0.01f;
    for (size_t i = 0; i < w2.size(); ++i) w2[i] = float(i % 5) * 1e-2f;
    for (size_t i = 0; i < b2.size(); ++i) b2[i] = -0.5f + 0.1f * float(i);
    std::vector<float> x(size_t(batch) * d_in);
    for (size_t i = 0; i < x.size(); ++i) x[i] = float(i % 256) / 255.f;

    Linear fc1 = make_linear(d_in, d_hidden);
    Linear fc2 = make_linear(d_hidden, d_out);
    CUDA_CHECK(cudaMemcpy(fc1.d_weight, w1.data(), w1.size() * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(fc1.d_bias, b1.data(), b1.size() * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(fc2.d_weight, w2.data(), w2.size() * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(fc1.d_bias, b2.data(), b2.size() * sizeof(float), cudaMemcpyHostToDevice));

    float *d_x, *d_h, *d_y;
    CUDA_CHECK(cudaMalloc(&d_x, x.size() * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_h, size_t(batch) * d_hidden * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_y, size_t(batch) * d_out * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(d_x, x.data(), x.size() * sizeof(float), cudaMemcpyHostToDevice));

    linear_fwd<<<dim3((d_hidden + 127) / 128, batch), 128>>>(d_x, fc1.d_weight, fc1.d_bias, d_h, batch, d_in, d_hidden, 1);
    linear_fwd<<<dim3(1, batch), 128>>>(d_h, fc2.d_weight, fc2.d_bias, d_y, batch, d_hidden, d_out, 0); // EXPECT: uninitialized_device_read
    CUDA_CHECK(cudaGetLastError());

    std::vector<float> y(size_t(batch) * d_out);
    CUDA_CHECK(cudaMemcpy(y.data(), d_y, y.size() * sizeof(float), cudaMemcpyDeviceToHost));
    printf("logits[0] = %.4f %.4f %.4f\n", y[0], y[1], y[2]);

    CUDA_CHECK(cudaFree(d_x));
    CUDA_CHECK(cudaFree(d_h));
    CUDA_CHECK(cudaFree(d_y));
    free_linear(fc1);
    free_linear(fc2);
    return 0;
}

// case: A network loader uploads each dense layer's weights and biases to cudaMalloc'd memory held in a struct, then its debug summary averages the biases by indexing the struct's device pointer on the host (host_deref_device_ptr at the bias read).
// expect: host_deref_device_ptr=1
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <utility>
#include <vector>

#define CUDA_CHECK(call)                                                           \
    do {                                                                           \
        cudaError_t err = (call);                                                  \
        if (err != cudaSuccess) {                                                  \
            std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,                \
                         cudaGetErrorString(err));                                 \
            std::exit(EXIT_FAILURE);                                               \
        }                                                                          \
    } while (0)

struct DenseLayer {
    int in = 0;
    int out = 0;
    float* d_weights = nullptr;  // out x in, row-major
    float* d_bias = nullptr;     // out
};

static DenseLayer make_layer(int in, int out, std::mt19937& rng) {
    DenseLayer layer;
    layer.in = in;
    layer.out = out;
    std::normal_distribution<float> init(0.0f, std::sqrt(2.0f / in));
    std::vector<float> w(size_t(in) * out), b(out);
    for (auto& x : w) x = init(rng);
    for (auto& x : b) x = 0.01f * init(rng);
    CUDA_CHECK(cudaMalloc(&layer.d_weights, w.size() * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&layer.d_bias, b.size() * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(layer.d_weights, w.data(), w.size() * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(layer.d_bias, b.data(), b.size() * sizeof(float), cudaMemcpyHostToDevice));
    return layer;
}

static void destroy_layer(DenseLayer& layer) {
    CUDA_CHECK(cudaFree(layer.d_weights));
    CUDA_CHECK(cudaFree(layer.d_bias));
    layer.d_weights = layer.d_bias = nullptr;
}

static void print_layer_summary(const DenseLayer& layer, int index) {
    double bias_mean = 0.0;
    for (int o = 0; o < layer.out; ++o) bias_mean += layer.d_bias[o];  // EXPECT: host_deref_device_ptr
    bias_mean /= layer.out;
    std::printf("layer %d: %d -> %d, mean bias %.5f\n", index, layer.in, layer.out, bias_mean);
}

__global__ void dense_forward(const float* __restrict__ x, const float* __restrict__ w,
                              const float* __restrict__ b, float* __restrict__ y, int in, int out) {
    int o = blockIdx.x * blockDim.x + threadIdx.x;
    if (o >= out) return;
    float acc = b[o];
    for (int i = 0; i < in; ++i) acc += w[size_t(o) * in + i] * x[i];
    y[o] = acc > 0.0f ? acc : 0.01f * acc;  // leaky relu
}

int main() {
    std::mt19937 rng(7);
    const int dims[] = {1024, 512, 256, 64};
    std::vector<DenseLayer> layers;
    for (int l = 0; l < 3; ++l) layers.push_back(make_layer(dims[l], dims[l + 1], rng));
    for (int l = 0; l < 3; ++l) print_layer_summary(layers[l], l);

    float *d_a = nullptr, *d_b = nullptr;
    CUDA_CHECK(cudaMalloc(&d_a, 1024 * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_b, 1024 * sizeof(float)));
    std::vector<float> input(1024, 0.5f);
    CUDA_CHECK(cudaMemcpy(d_a, input.data(), input.size() * sizeof(float), cudaMemcpyHostToDevice));
    for (const DenseLayer& layer : layers) {
        dense_forward<<<(layer.out + 127) / 128, 128>>>(d_a, layer.d_weights, layer.d_bias, d_b, layer.in, layer.out);
        CUDA_CHECK(cudaGetLastError());
        std::swap(d_a, d_b);
    }
    std::vector<float> result(dims[3]);
    CUDA_CHECK(cudaMemcpy(result.data(), d_a, result.size() * sizeof(float), cudaMemcpyDeviceToHost));
    std::printf("output[0..3] = %f %f %f %f\n", result[0], result[1], result[2], result[3]);

    for (auto& layer : layers) destroy_layer(layer);
    CUDA_CHECK(cudaFree(d_a));
    CUDA_CHECK(cudaFree(d_b));
    return 0;
}

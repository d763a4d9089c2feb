// case: a DenseLayer class owns its weights through its destructor, but forward() allocates input and output buffers into locals and frees only the input before returning the host copy
// expect: device_memory_leak=1
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CUDA_CHECK(x)                                                                \
    do {                                                                             \
        cudaError_t e_ = (x);                                                        \
        if (e_ != cudaSuccess) {                                                     \
            std::fprintf(stderr, "cuda: %s at %s:%d\n", cudaGetErrorString(e_),      \
                         __FILE__, __LINE__);                                        \
            std::abort();                                                            \
        }                                                                            \
    } while (0)

__global__ void gemv_bias_gelu(const float* W, const float* b, const float* x, float* y,
                               int in, int out) {
    int o = blockIdx.x * blockDim.x + threadIdx.x;
    if (o >= out) return;
    float acc = b[o];
    for (int i = 0; i < in; ++i) acc += W[o * in + i] * x[i];
    y[o] = 0.5f * acc * (1.f + tanhf(0.79788456f * (acc + 0.044715f * acc * acc * acc)));
}

class DenseLayer {
public:
    DenseLayer(int in, int out) : in_(in), out_(out) {
        std::vector<float> w((size_t)in * out), b(out, 0.f);
        for (size_t i = 0; i < w.size(); ++i) w[i] = ((int)(i % 17) - 8) * 0.01f;
        CUDA_CHECK(cudaMalloc(&d_W_, w.size() * sizeof(float)));
        CUDA_CHECK(cudaMalloc(&d_b_, b.size() * sizeof(float)));
        CUDA_CHECK(cudaMemcpy(d_W_, w.data(), w.size() * sizeof(float), cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemcpy(d_b_, b.data(), b.size() * sizeof(float), cudaMemcpyHostToDevice));
    }
    ~DenseLayer() {
        cudaFree(d_W_);
        cudaFree(d_b_);
    }
    DenseLayer(const DenseLayer&) = delete;
    DenseLayer& operator=(const DenseLayer&) = delete;

    std::vector<float> forward(const std::vector<float>& x) const {
        float* d_x = nullptr;
        float* d_y = nullptr;
        CUDA_CHECK(cudaMalloc(&d_x, in_ * sizeof(float)));
        CUDA_CHECK(cudaMalloc(&d_y, out_ * sizeof(float))); // EXPECT: device_memory_leak
        CUDA_CHECK(cudaMemcpy(d_x, x.data(), in_ * sizeof(float), cudaMemcpyHostToDevice));
        gemv_bias_gelu<<<(out_ + 127) / 128, 128>>>(d_W_, d_b_, d_x, d_y, in_, out_);
        CUDA_CHECK(cudaGetLastError());
        std::vector<float> y(out_);
        CUDA_CHECK(cudaMemcpy(y.data(), d_y, out_ * sizeof(float), cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaFree(d_x));
        return y;
    }

private:
    int in_, out_;
    float* d_W_ = nullptr;
    float* d_b_ = nullptr;
};

int main() {
    DenseLayer l1(1024, 4096), l2(4096, 1024);
    std::vector<float> x(1024, 0.1f);
    for (int token = 0; token < 64; ++token) {
        std::vector<float> h = l1.forward(x);
        x = l2.forward(h);
    }
    float norm = 0.f;
    for (float v : x) norm += v * v;
    std::printf("output norm^2 = %f\n", norm);
    return 0;
}

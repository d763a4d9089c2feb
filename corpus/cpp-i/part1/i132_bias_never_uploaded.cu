// case: a fully connected layer uploads its weights but the bias upload was lost in a refactor, so the forward kernel reads the freshly cudaMalloc'd bias buffer that nothing wrote
// expect: uninitialized_device_read=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(call) do { cudaError_t err = (call); if (err != cudaSuccess) { \
    fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(err)); exit(1); } } while (0)

__global__ void fc_forward(const float* W, const float* bias, const float* x, float* y,
                           int in_dim, int out_dim, int batch) {
    int o = blockIdx.x * blockDim.x + threadIdx.x;
    int b = blockIdx.y;
    if (o >= out_dim || b >= batch) return;
    float acc = bias[o];
    for (int k = 0; k < in_dim; ++k) acc += W[o * in_dim + k] * x[b * in_dim + k];
    y[b * out_dim + o] = acc > 0.f ? acc : 0.f;
}

class DenseLayer {
public:
    DenseLayer(int in_dim, int out_dim) : in_(in_dim), out_(out_dim) {
        CUDA_CHECK(cudaMalloc(&d_W_, in_ * out_ * sizeof(float)));
        CUDA_CHECK(cudaMalloc(&d_bias_, out_ * sizeof(float)));
    }
    ~DenseLayer() {
        cudaFree(d_bias_);
        cudaFree(d_W_);
    }
    void load(const std::vector<float>& W, const std::vector<float>& bias) {
        CUDA_CHECK(cudaMemcpy(d_W_, W.data(), W.size() * sizeof(float), cudaMemcpyHostToDevice));
        (void)bias;
    }
    void forward(const float* d_x, float* d_y, int batch) {
        dim3 grid((out_ + 127) / 128, batch);
        fc_forward<<<grid, 128>>>(d_W_, d_bias_, d_x, d_y, in_, out_, batch); // EXPECT: uninitialized_device_read
        CUDA_CHECK(cudaGetLastError());
    }

private:
    int in_, out_;
    float* d_W_ = nullptr;
    float* d_bias_ = nullptr;
};

int main() {
    const int in_dim = 784, out_dim = 256, batch = 64;
    std::vector<float> W(in_dim * out_dim), bias(out_dim, 0.1f), x(batch * in_dim);
    for (size_t i = 0; i < W.size(); ++i) W[i] = ((int)(i % 17) - 8) * 0.01f;
    for (size_t i = 0; i < x.size(); ++i) x[i] = (i % 255) / 255.f;

    float *d_x, *d_y;
    CUDA_CHECK(cudaMalloc(&d_x, x.size() * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_y, batch * out_dim * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(d_x, x.data(), x.size() * sizeof(float), cudaMemcpyHostToDevice));

    DenseLayer layer(in_dim, out_dim);
    layer.load(W, bias);
    layer.forward(d_x, d_y, batch);

    std::vector<float> y(batch * out_dim);
    CUDA_CHECK(cudaMemcpy(y.data(), d_y, y.size() * sizeof(float), cudaMemcpyDeviceToHost));
    printf("y[0][0..2] = %f %f %f\n", y[0], y[1], y[2]);

    CUDA_CHECK(cudaFree(d_y));
    CUDA_CHECK(cudaFree(d_x));
    return 0;
}

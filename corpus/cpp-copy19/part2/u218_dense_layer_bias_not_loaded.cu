// case: a templated fully connected layer whose set_weights() uploads only the weight matrix; the bias buffer is allocated but never written before the forward kernel reads it.
// expect: uninitialized_device_read=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(cmd) do { cudaError_t e = (cmd); if (e != cudaSuccess) { \
    std::fprintf(stderr, "Failed: %s (%s)\n", #cmd, cudaGetErrorString(e)); std::exit(EXIT_FAILURE); } } while (0)

template <typename T>
__global__ void dense_forward(const T* __restrict__ x, const T* __restrict__ W, const T* __restrict__ b,
                              T* __restrict__ y, int in_features, int out_features, int batch)
{
    int o = blockIdx.x * blockDim.x + threadIdx.x;
    int n = blockIdx.y;
    if (o >= out_features || n >= batch) return;
    T acc = b[o];
    for (int k = 0; k < in_features; ++k)
        acc += W[o * in_features + k] * x[n * in_features + k];
    y[n * out_features + o] = acc > T(0) ? acc : T(0);
}

template <typename T>
class Dense {
public:
    Dense(int in, int out) : in_(in), out_(out) {
        CUDA_CHECK(cudaMalloc(&W_, sizeof(T) * in * out));
        CUDA_CHECK(cudaMalloc(&b_, sizeof(T) * out));
    }
    ~Dense() {
        cudaFree(W_);
        cudaFree(b_);
    }
    void set_weights(const std::vector<T>& W, const std::vector<T>& b) {
        CUDA_CHECK(cudaMemcpy(W_, W.data(), sizeof(T) * W.size(), cudaMemcpyHostToDevice));
        (void)b;
    }
    void forward(const T* d_x, T* d_y, int batch) const {
        dim3 block(128);
        dim3 grid((out_ + 127) / 128, batch);
        dense_forward<T><<<grid, block>>>(d_x, W_, b_, d_y, in_, out_, batch); // EXPECT: uninitialized_device_read
        CUDA_CHECK(cudaGetLastError());
    }

private:
    int in_, out_;
    T* W_ = nullptr;
    T* b_ = nullptr;
};

int main()
{
    const int in = 512, out = 256, batch = 32;
    std::vector<float> W(in * out, 0.01f), b(out, 0.1f), x(batch * in, 1.0f), y(batch * out);

    Dense<float> fc(in, out);
    fc.set_weights(W, b);

    float *d_x, *d_y;
    CUDA_CHECK(cudaMalloc(&d_x, sizeof(float) * batch * in));
    CUDA_CHECK(cudaMalloc(&d_y, sizeof(float) * batch * out));
    CUDA_CHECK(cudaMemcpy(d_x, x.data(), sizeof(float) * x.size(), cudaMemcpyHostToDevice));

    fc.forward(d_x, d_y, batch);
    CUDA_CHECK(cudaMemcpy(y.data(), d_y, sizeof(float) * y.size(), cudaMemcpyDeviceToHost));
    std::printf("y[0] = %f (expected %f)\n", y[0], in * 0.01f + 0.1f);

    CUDA_CHECK(cudaFree(d_x));
    CUDA_CHECK(cudaFree(d_y));
    return 0;
}

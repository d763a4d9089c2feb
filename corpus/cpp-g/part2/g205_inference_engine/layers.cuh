#pragma once
#include <cuda_runtime.h>
#include <stdexcept>
#include <string>
#include <utility>

#define ENGINE_CHECK(expr)                                                                 \
    do {                                                                                   \
        cudaError_t status_ = (expr);                                                      \
        if (status_ != cudaSuccess)                                                        \
            throw std::runtime_error(std::string(__FILE__) + ":" + std::to_string(__LINE__) \
                                     + " " + cudaGetErrorString(status_));                 \
    } while (0)

template <typename T>
class PinnedBuffer {
public:
    explicit PinnedBuffer(size_t n) : n_(n) { ENGINE_CHECK(cudaMallocHost(&p_, n * sizeof(T))); }
    PinnedBuffer(PinnedBuffer&& o) noexcept : p_(std::exchange(o.p_, nullptr)), n_(o.n_) {}
    ~PinnedBuffer() { if (p_) cudaFreeHost(p_); }
    T& operator[](size_t i) { return p_[i]; }
    const T& operator[](size_t i) const { return p_[i]; }
    T* data() { return p_; }
    size_t size() const { return n_; }
private:
    T* p_ = nullptr;
    size_t n_ = 0;
};

__global__ void dense_kernel(const float* w, const float* x, float* y, int in, int out) {
    int o = blockIdx.x * blockDim.x + threadIdx.x;
    if (o >= out) return;
    float acc = 0.f;
    for (int i = 0; i < in; ++i) acc += w[(size_t)o * in + i] * x[i];
    y[o] = acc;
}

__global__ void relu_kernel(float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = fmaxf(y[i], 0.f);
}

class Layer {
public:
    virtual ~Layer() = default;
    virtual void forward(const float* in, float* out, cudaStream_t s) = 0;
    virtual int out_features() const = 0;
};

class Dense : public Layer {
public:
    Dense(int in, int out) : in_(in), out_(out) {
        ENGINE_CHECK(cudaMalloc(&w_, sizeof(float) * in * out));
        ENGINE_CHECK(cudaMemset(w_, 0, sizeof(float) * in * out));
    }
    ~Dense() override { cudaFree(w_); }
    void forward(const float* in, float* out, cudaStream_t s) override {
        dense_kernel<<<(out_ + 127) / 128, 128, 0, s>>>(w_, in, out, in_, out_);
    }
    int out_features() const override { return out_; }
private:
    int in_, out_;
    float* w_ = nullptr;
};

class Relu : public Layer {
public:
    explicit Relu(int n) : n_(n) {}
    void forward(const float* in, float* out, cudaStream_t s) override {
        if (in != out) ENGINE_CHECK(cudaMemcpyAsync(out, in, sizeof(float) * n_, cudaMemcpyDeviceToDevice, s));
        relu_kernel<<<(n_ + 255) / 256, 256, 0, s>>>(out, n_);
    }
    int out_features() const override { return n_; }
private:
    int n_;
};

// case: a small Tensor<T> class with RAII device storage; the GELU kernel writes the output tensor and to_host() copies it back before the destructors release both tensors.
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <utility>

#define CUDA_CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    std::fprintf(stderr, "%s\n", cudaGetErrorString(e)); std::exit(1); } } while (0)

template <typename T>
class Tensor {
public:
    explicit Tensor(size_t n) : n_(n) { CUDA_CHECK(cudaMalloc(&d_, n * sizeof(T))); }
    Tensor(const std::vector<T>& host) : Tensor(host.size()) {
        CUDA_CHECK(cudaMemcpy(d_, host.data(), n_ * sizeof(T), cudaMemcpyHostToDevice));
    }
    ~Tensor() { if (d_) cudaFree(d_); }
    Tensor(Tensor&& o) noexcept : d_(std::exchange(o.d_, nullptr)), n_(o.n_) {}
    Tensor(const Tensor&) = delete;
    Tensor& operator=(const Tensor&) = delete;

    T* data() { return d_; }
    const T* data() const { return d_; }
    size_t size() const { return n_; }

    std::vector<T> to_host() const {
        std::vector<T> h(n_);
        CUDA_CHECK(cudaMemcpy(h.data(), d_, n_ * sizeof(T), cudaMemcpyDeviceToHost));
        return h;
    }

private:
    T* d_ = nullptr;
    size_t n_ = 0;
};

__global__ void gelu(const float* x, float* y, size_t n)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        y[i] = 0.5f * v * (1.f + tanhf(0.7978845608f * (v + 0.044715f * v * v * v)));
    }
}

static Tensor<float> gelu_forward(const Tensor<float>& x)
{
    Tensor<float> y(x.size());
    gelu<<<(unsigned)((x.size() + 255) / 256), 256>>>(x.data(), y.data(), x.size());
    CUDA_CHECK(cudaGetLastError());
    return y;
}

int main()
{
    std::vector<float> host(1 << 20);
    for (size_t i = 0; i < host.size(); ++i) host[i] = (float(i % 200) - 100.f) / 25.f;

    Tensor<float> x(host);
    Tensor<float> y = gelu_forward(x);
    std::vector<float> out = y.to_host();

    std::printf("gelu(%f) = %f\n", host[150], out[150]);
    return 0;
}

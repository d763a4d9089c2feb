// case: a LayerNorm layer holding its parameters in unique_ptrs with a cudaFree deleter; load_params() uploads beta twice and never gamma, so the forward kernel reads uninitialized gamma.
// expect: uninitialized_device_read=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>

#define CUDA_CHECK(x) do { cudaError_t err = (x); if (err != cudaSuccess) { \
    std::fprintf(stderr, "%s\n", cudaGetErrorString(err)); std::abort(); } } while (0)

struct CudaFree { void operator()(float* p) const { cudaFree(p); } };
using DeviceBuffer = std::unique_ptr<float, CudaFree>;

static DeviceBuffer make_buffer(size_t count)
{
    float* p = nullptr;
    CUDA_CHECK(cudaMalloc(&p, count * sizeof(float)));
    return DeviceBuffer(p);
}

__global__ void layernorm_fwd(const float* x, const float* gamma, const float* beta, float* y, int rows, int cols)
{
    int r = blockIdx.x;
    if (r >= rows || threadIdx.x != 0) return;
    const float* xr = x + (size_t)r * cols;
    float mean = 0.f, var = 0.f;
    for (int c = 0; c < cols; ++c) mean += xr[c];
    mean /= cols;
    for (int c = 0; c < cols; ++c) var += (xr[c] - mean) * (xr[c] - mean);
    float inv = rsqrtf(var / cols + 1e-5f);
    for (int c = 0; c < cols; ++c)
        y[(size_t)r * cols + c] = (xr[c] - mean) * inv * gamma[c] + beta[c];
}

class LayerNorm {
public:
    explicit LayerNorm(int cols) : cols_(cols), gamma_(make_buffer(cols)), beta_(make_buffer(cols)) {}

    void load_params(const std::vector<float>& gamma, const std::vector<float>& beta) {
        CUDA_CHECK(cudaMemcpy(beta_.get(), gamma.data(), cols_ * sizeof(float), cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemcpy(beta_.get(), beta.data(), cols_ * sizeof(float), cudaMemcpyHostToDevice));
    }

    void forward(const float* d_x, float* d_y, int rows) {
        layernorm_fwd<<<rows, 32>>>(d_x, gamma_.get(), beta_.get(), d_y, rows, cols_); // EXPECT: uninitialized_device_read
        CUDA_CHECK(cudaGetLastError());
    }

private:
    int cols_;
    DeviceBuffer gamma_;
    DeviceBuffer beta_;
};

int main()
{
    constexpr int rows = 128, cols = 768;
    std::vector<float> x(rows * cols), y(rows * cols);
    for (size_t i = 0; i < x.size(); ++i) x[i] = float(i % 17) - 8.f;

    LayerNorm ln(cols);
    ln.load_params(std::vector<float>(cols, 1.f), std::vector<float>(cols, 0.f));

    DeviceBuffer d_x = make_buffer(rows * cols);
    DeviceBuffer d_y = make_buffer(rows * cols);
    CUDA_CHECK(cudaMemcpy(d_x.get(), x.data(), x.size() * sizeof(float), cudaMemcpyHostToDevice));
    ln.forward(d_x.get(), d_y.get(), rows);
    CUDA_CHECK(cudaMemcpy(y.data(), d_y.get(), y.size() * sizeof(float), cudaMemcpyDeviceToHost));

    std::printf("y[0] = %f\n", y[0]);
    return 0;
}

// case: a mixed-precision training step owns its gradients in an RAII GradientBuffer (cudaMalloc/cudaFree); before the optimizer update, the overflow check reads the first gradient through the raw device pointer on the host and returns early, letting the destructor free the buffer.
// expect: host_deref_device_ptr=1
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(call)                                                           \
    do {                                                                           \
        cudaError_t e_ = (call);                                                   \
        if (e_ != cudaSuccess) {                                                   \
            std::fprintf(stderr, "[train] %s: %s\n", #call, cudaGetErrorString(e_)); \
            std::exit(EXIT_FAILURE);                                               \
        }                                                                          \
    } while (0)

__global__ void backward_linear(const float* x, const float* dy, float* dw, int in, int out, float loss_scale) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= in * out) return;
    dw[j] = x[j % in] * dy[j / in] * loss_scale;
}

__global__ void sgd_update(float* w, const float* g, int n, float lr, float inv_scale) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) w[i] -= lr * g[i] * inv_scale;
}

class GradientBuffer {
public:
    explicit GradientBuffer(size_t n) : n_(n) { CUDA_CHECK(cudaMalloc(&grad_, n_ * sizeof(float))); }
    ~GradientBuffer() { cudaFree(grad_); }
    GradientBuffer(const GradientBuffer&) = delete;
    GradientBuffer& operator=(const GradientBuffer&) = delete;

    float* data() { return grad_; }
    size_t size() const { return n_; }

    // Loss-scale overflow shows up in the first element first in practice; cheap check.
    bool overflowed() const {
        const float g0 = grad_[0];  // EXPECT: host_deref_device_ptr
        return !std::isfinite(g0);
    }

private:
    size_t n_;
    float* grad_ = nullptr;
};

struct LinearLayer {
    int in, out;
    float* w;
    float* x;
    float* dy;
};

static bool train_step(LinearLayer& layer, float& loss_scale, cudaStream_t s) {
    const int n = layer.in * layer.out;
    GradientBuffer grads(n);
    backward_linear<<<(n + 255) / 256, 256, 0, s>>>(layer.x, layer.dy, grads.data(), layer.in, layer.out, loss_scale);
    CUDA_CHECK(cudaStreamSynchronize(s));

    if (grads.overflowed()) {
        loss_scale *= 0.5f;
        return false;            // skip the update; ~GradientBuffer frees the gradients
    }
    sgd_update<<<(n + 255) / 256, 256, 0, s>>>(layer.w, grads.data(), n, 1e-3f, 1.0f / loss_scale);
    CUDA_CHECK(cudaStreamSynchronize(s));
    return true;
}

int main() {
    LinearLayer layer{1024, 1024, nullptr, nullptr, nullptr};
    CUDA_CHECK(cudaMalloc(&layer.w, sizeof(float) * layer.in * layer.out));
    CUDA_CHECK(cudaMalloc(&layer.x, sizeof(float) * layer.in));
    CUDA_CHECK(cudaMalloc(&layer.dy, sizeof(float) * layer.out));
    CUDA_CHECK(cudaMemset(layer.w, 0, sizeof(float) * layer.in * layer.out));
    CUDA_CHECK(cudaMemset(layer.x, 0, sizeof(float) * layer.in));
    CUDA_CHECK(cudaMemset(layer.dy, 0, sizeof(float) * layer.out));

    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreate(&s));
    float loss_scale = 65536.f;
    int applied = 0;
    for (int step = 0; step < 8; ++step) applied += train_step(layer, loss_scale, s) ? 1 : 0;
    std::printf("%d of 8 steps applied, loss scale %.0f\n", applied, loss_scale);

    cudaFree(layer.dy);
    cudaFree(layer.x);
    cudaFree(layer.w);
    cudaStreamDestroy(s);
    return 0;
}

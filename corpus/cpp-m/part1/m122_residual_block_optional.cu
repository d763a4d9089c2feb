// case: A residual MLP block starts its pointers at nullptr and allocates them through a helper alloc_device(float**) and an init() called first; the optional residual and mask pointers stay null when disabled, the kernel tests them for null, the mask copy is guarded by the same flag that allocated it, and cudaFree(nullptr) is harmless; correct.
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(x)                                                              \
    do {                                                                           \
        cudaError_t e_ = (x);                                                      \
        if (e_ != cudaSuccess) {                                                   \
            std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__,                 \
                         cudaGetErrorString(e_));                                  \
            std::exit(EXIT_FAILURE);                                               \
        }                                                                          \
    } while (0)

struct BlockConfig {
    int dim;
    bool use_residual;
    bool use_mask;
};

static void alloc_device(float** p, size_t count) {
    CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(p), count * sizeof(float)));
}

static float* d_scale = nullptr;  // per-feature scale, set up by init()

static void init(int dim) {
    alloc_device(&d_scale, dim);
    std::vector<float> ones(dim, 1.0f);
    CUDA_CHECK(cudaMemcpy(d_scale, ones.data(), dim * sizeof(float), cudaMemcpyHostToDevice));
}

__global__ void scaled_gelu_residual(const float* __restrict__ x, const float* __restrict__ scale,
                                     const float* __restrict__ residual, const float* __restrict__ mask,
                                     float* __restrict__ y, int dim) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= dim) return;
    float v = x[i] * scale[i];
    v = 0.5f * v * (1.0f + tanhf(0.7978845608f * (v + 0.044715f * v * v * v)));
    if (residual != nullptr) v += residual[i];
    if (mask) v *= mask[i];
    y[i] = v;
}

static std::vector<float> run_block(const BlockConfig& cfg, const std::vector<float>& input) {
    float* d_x = nullptr;
    float* d_y = nullptr;
    float* d_residual = nullptr;
    float* d_mask = nullptr;
    alloc_device(&d_x, cfg.dim);
    alloc_device(&d_y, cfg.dim);
    CUDA_CHECK(cudaMemcpy(d_x, input.data(), cfg.dim * sizeof(float), cudaMemcpyHostToDevice));

    if (cfg.use_residual) {
        alloc_device(&d_residual, cfg.dim);
        CUDA_CHECK(cudaMemcpy(d_residual, d_x, cfg.dim * sizeof(float), cudaMemcpyDeviceToDevice));
    }
    if (cfg.use_mask) alloc_device(&d_mask, cfg.dim);

    if (cfg.use_mask) {
        std::vector<float> mask(cfg.dim);
        for (int i = 0; i < cfg.dim; ++i) mask[i] = (i % 4 == 0) ? 0.0f : 1.0f;
        CUDA_CHECK(cudaMemcpy(d_mask, mask.data(), cfg.dim * sizeof(float), cudaMemcpyHostToDevice));
    }

    scaled_gelu_residual<<<(cfg.dim + 255) / 256, 256>>>(d_x, d_scale, d_residual, d_mask, d_y, cfg.dim);
    CUDA_CHECK(cudaGetLastError());

    std::vector<float> out(cfg.dim);
    CUDA_CHECK(cudaMemcpy(out.data(), d_y, cfg.dim * sizeof(float), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(d_mask));      // may be null: no-op
    CUDA_CHECK(cudaFree(d_residual));  // may be null: no-op
    CUDA_CHECK(cudaFree(d_y));
    CUDA_CHECK(cudaFree(d_x));
    return out;
}

int main() {
    const int dim = 4096;
    init(dim);
    std::vector<float> input(dim);
    for (int i = 0; i < dim; ++i) input[i] = 0.001f * (i - dim / 2);

    BlockConfig plain{dim, false, false}, full{dim, true, true};
    std::vector<float> a = run_block(plain, input);
    std::vector<float> b = run_block(full, input);
    std::printf("plain y[100]=%.4f  residual+mask y[101]=%.4f y[100]=%.4f\n", a[100], b[101], b[100]);

    CUDA_CHECK(cudaFree(d_scale));
    return 0;
}

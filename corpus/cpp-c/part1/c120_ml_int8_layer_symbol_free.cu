// case: an INT8 linear layer takes its per-channel scales from a __device__ global through cudaGetSymbolAddress and keeps that pointer next to its cudaMalloc'd weights; the destructor releases both with cudaFree, freeing the module global, which is not an allocation.
// expect: mismatched_free=1
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <vector>

#define CUDA_TRY(call)                                                         \
    do {                                                                       \
        cudaError_t st = (call);                                               \
        if (st != cudaSuccess)                                                 \
            std::fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(st));   \
    } while (0)

constexpr int kMaxChannels = 4096;
__device__ float g_channel_scale[kMaxChannels];

__global__ void int8_gemv(const int8_t* w, const int8_t* x, const float* scale, float act_scale,
                          int out_ch, int in_ch, float* y) {
    int o = blockIdx.x * blockDim.x + threadIdx.x;
    if (o >= out_ch) return;
    int32_t acc = 0;
    for (int k = 0; k < in_ch; ++k) acc += int32_t(w[static_cast<size_t>(o) * in_ch + k]) * x[k];
    y[o] = acc * scale[o] * act_scale;
}

class Int8Linear {
public:
    Int8Linear(int out_ch, int in_ch, const std::vector<float>& scales)
        : out_(out_ch), in_(in_ch) {
        CUDA_TRY(cudaMalloc(&weights_, static_cast<size_t>(out_) * in_));
        CUDA_TRY(cudaMemset(weights_, 1, static_cast<size_t>(out_) * in_));
        CUDA_TRY(cudaGetSymbolAddress(reinterpret_cast<void**>(&scale_), g_channel_scale));
        CUDA_TRY(cudaMemcpyToSymbol(g_channel_scale, scales.data(), out_ * sizeof(float)));
    }

    ~Int8Linear() {
        CUDA_TRY(cudaFree(weights_));
        CUDA_TRY(cudaFree(scale_));  // EXPECT: mismatched_free
    }

    Int8Linear(const Int8Linear&) = delete;
    Int8Linear& operator=(const Int8Linear&) = delete;

    void forward(const int8_t* x, float act_scale, float* y, cudaStream_t s) const {
        int8_gemv<<<(out_ + 127) / 128, 128, 0, s>>>(weights_, x, scale_, act_scale, out_, in_, y);
    }

private:
    int out_, in_;
    int8_t* weights_ = nullptr;
    float* scale_ = nullptr;
};

int main() {
    const int out_ch = 1024, in_ch = 1024;
    std::vector<float> scales(out_ch, 0.02f);
    cudaStream_t s;
    CUDA_TRY(cudaStreamCreate(&s));

    int8_t* d_x = nullptr;
    float* d_y = nullptr;
    CUDA_TRY(cudaMalloc(&d_x, in_ch));
    CUDA_TRY(cudaMalloc(&d_y, out_ch * sizeof(float)));
    CUDA_TRY(cudaMemset(d_x, 2, in_ch));

    std::vector<float> y(out_ch);
    {
        Int8Linear proj(out_ch, in_ch, scales);
        proj.forward(d_x, 0.5f, d_y, s);
        CUDA_TRY(cudaStreamSynchronize(s));
        CUDA_TRY(cudaMemcpy(y.data(), d_y, out_ch * sizeof(float), cudaMemcpyDeviceToHost));
    }
    std::printf("y[0] = %.3f\n", y[0]);

    cudaFree(d_y);
    cudaFree(d_x);
    cudaStreamDestroy(s);
    return 0;
}

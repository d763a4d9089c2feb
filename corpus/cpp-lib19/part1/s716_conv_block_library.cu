// conv_block.cu: a Conv2d + bias + ReLU block of an inference library. The framework owns the
// cuDNN handle and binds it to the stream it passes in with every call (one handle per
// stream, bound where the framework creates its execution contexts); this file never creates
// a handle itself.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>
#include <cudnn.h>

#define CUDA_CHECK(call)                                                          \
    do {                                                                          \
        cudaError_t err_ = (call);                                                \
        if (err_ != cudaSuccess) {                                                \
            std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,               \
                         cudaGetErrorString(err_));                               \
            std::abort();                                                         \
        }                                                                         \
    } while (0)

#define CUDNN_CHECK(call)                                                         \
    do {                                                                          \
        cudnnStatus_t s_ = (call);                                                \
        if (s_ != CUDNN_STATUS_SUCCESS) {                                         \
            std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,               \
                         cudnnGetErrorString(s_));                                \
            std::abort();                                                         \
        }                                                                         \
    } while (0)

// y is NCHW; one bias per output channel.
__global__ void bias_relu_nchw(float* __restrict__ y, const float* __restrict__ bias,
                               int channels, int plane, size_t total) {
    const size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
    if (i >= total) return;
    const int c = static_cast<int>((i / plane) % channels);
    const float v = y[i] + bias[c];
    y[i] = v > 0.f ? v : 0.f;
}

struct ConvShape {
    int n, c, h, w;        // input
    int k, r, s;           // filters
    int pad, stride;
};

class ConvBlock {
public:
    ConvBlock(cudnnHandle_t handle, const ConvShape& shape, const std::vector<float>& weights,
              const std::vector<float>& bias)
        : shape_(shape) {
        CUDNN_CHECK(cudnnCreateTensorDescriptor(&x_desc_));
        CUDNN_CHECK(cudnnCreateTensorDescriptor(&y_desc_));
        CUDNN_CHECK(cudnnCreateFilterDescriptor(&w_desc_));
        CUDNN_CHECK(cudnnCreateConvolutionDescriptor(&conv_desc_));
        CUDNN_CHECK(cudnnSetTensor4dDescriptor(x_desc_, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT,
                                               shape.n, shape.c, shape.h, shape.w));
        CUDNN_CHECK(cudnnSetFilter4dDescriptor(w_desc_, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW,
                                               shape.k, shape.c, shape.r, shape.s));
        CUDNN_CHECK(cudnnSetConvolution2dDescriptor(conv_desc_, shape.pad, shape.pad, shape.stride, shape.stride,
                                                    1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
        CUDNN_CHECK(cudnnGetConvolution2dForwardOutputDim(conv_desc_, x_desc_, w_desc_,
                                                          &out_n_, &out_c_, &out_h_, &out_w_));
        CUDNN_CHECK(cudnnSetTensor4dDescriptor(y_desc_, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT,
                                               out_n_, out_c_, out_h_, out_w_));
        CUDNN_CHECK(cudnnGetConvolutionForwardWorkspaceSize(handle, x_desc_, w_desc_, conv_desc_, y_desc_,
                                                            kAlgo, &ws_bytes_));
        CUDA_CHECK(cudaMalloc(&d_w_, weights.size() * sizeof(float)));
        CUDA_CHECK(cudaMalloc(&d_bias_, bias.size() * sizeof(float)));
        if (ws_bytes_ > 0) CUDA_CHECK(cudaMalloc(&d_ws_, ws_bytes_));
        CUDA_CHECK(cudaMemcpy(d_w_, weights.data(), weights.size() * sizeof(float), cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemcpy(d_bias_, bias.data(), bias.size() * sizeof(float), cudaMemcpyHostToDevice));
    }

    ~ConvBlock() {
        cudaFree(d_ws_);
        cudaFree(d_bias_);
        cudaFree(d_w_);
        cudnnDestroyConvolutionDescriptor(conv_desc_);
        cudnnDestroyFilterDescriptor(w_desc_);
        cudnnDestroyTensorDescriptor(y_desc_);
        cudnnDestroyTensorDescriptor(x_desc_);
    }

    size_t output_elems() const {
        return static_cast<size_t>(out_n_) * out_c_ * out_h_ * out_w_;
    }

    // `handle` is bound to `stream` by the caller.
    void forward(cudnnHandle_t handle, cudaStream_t stream, const float* d_x, float* d_y) const {
        const float one = 1.0f, zero = 0.0f;
        CUDNN_CHECK(cudnnConvolutionForward(handle, &one, x_desc_, d_x, w_desc_, d_w_, conv_desc_, kAlgo,
                                            d_ws_, ws_bytes_, &zero, y_desc_, d_y));
        const size_t total = output_elems();
        const unsigned blocks = static_cast<unsigned>((total + 255) / 256);
        bias_relu_nchw<<<blocks, 256, 0, stream>>>(d_y, d_bias_, out_c_, out_h_ * out_w_, total);
        CUDA_CHECK(cudaGetLastError());
    }

private:
    static constexpr cudnnConvolutionFwdAlgo_t kAlgo = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM;
    ConvShape shape_;
    int out_n_ = 0, out_c_ = 0, out_h_ = 0, out_w_ = 0;
    cudnnTensorDescriptor_t x_desc_ = nullptr, y_desc_ = nullptr;
    cudnnFilterDescriptor_t w_desc_ = nullptr;
    cudnnConvolutionDescriptor_t conv_desc_ = nullptr;
    float* d_w_ = nullptr;
    float* d_bias_ = nullptr;
    void* d_ws_ = nullptr;
    size_t ws_bytes_ = 0;
};

// Debug helper used by the framework's layer dumps: sum of a block's output.
double conv_block_checksum(cudnnHandle_t handle, cudaStream_t stream, const ConvBlock& block,
                           const float* d_x, float* d_y, float* h_scratch_pinned) {
    block.forward(handle, stream, d_x, d_y);
    const size_t n = block.output_elems();
    CUDA_CHECK(cudaMemcpyAsync(h_scratch_pinned, d_y, n * sizeof(float), cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    double sum = 0.0;
    for (size_t i = 0; i < n; ++i) sum += h_scratch_pinned[i];
    return sum;
}

#pragma once
// A one-convolution image classifier: conv3x3 -> +bias -> ReLU -> global average pool ->
// softmax. cuDNN does the convolution, bias, activation and softmax; the pooling is ours.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include <cudnn.h>

#define CUDA_CHECK(call)                                                          \
    do {                                                                          \
        cudaError_t err_ = (call);                                                \
        if (err_ != cudaSuccess) {                                                \
            std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,               \
                         cudaGetErrorString(err_));                               \
            std::exit(EXIT_FAILURE);                                              \
        }                                                                         \
    } while (0)

#define CUDNN_CHECK(call)                                                         \
    do {                                                                          \
        cudnnStatus_t s_ = (call);                                                \
        if (s_ != CUDNN_STATUS_SUCCESS) {                                         \
            std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,               \
                         cudnnGetErrorString(s_));                                \
            std::exit(EXIT_FAILURE);                                              \
        }                                                                         \
    } while (0)

constexpr int kBatch = 32, kChannels = 3, kHeight = 64, kWidth = 64;
constexpr int kClasses = 64;  // one conv output channel per class

// y: NCHW (n, k, h, w) -> logits (n, k): mean over h*w
__global__ void global_avg_pool(const float* __restrict__ y, float* __restrict__ logits, int nk, int plane) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= nk) return;
    const float* p = y + static_cast<size_t>(i) * plane;
    float s = 0.f;
    for (int j = 0; j < plane; ++j) s += p[j];
    logits[i] = s / plane;
}

struct TinyCnn {
    cudnnTensorDescriptor_t x_desc, y_desc, bias_desc, logits_desc;
    cudnnFilterDescriptor_t w_desc;
    cudnnConvolutionDescriptor_t conv_desc;
    cudnnActivationDescriptor_t relu;
    cudnnConvolutionFwdAlgo_t algo = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM;
    size_t ws_bytes = 0;
    int out_h = 0, out_w = 0;

    size_t input_elems() const { return static_cast<size_t>(kBatch) * kChannels * kHeight * kWidth; }
    size_t output_elems() const { return static_cast<size_t>(kBatch) * kClasses * out_h * out_w; }
    size_t weight_elems() const { return static_cast<size_t>(kClasses) * kChannels * 3 * 3; }
    size_t prob_elems() const { return static_cast<size_t>(kBatch) * kClasses; }
};

inline TinyCnn make_tiny_cnn(cudnnHandle_t cudnn) {
    TinyCnn net{};
    CUDNN_CHECK(cudnnCreateTensorDescriptor(&net.x_desc));
    CUDNN_CHECK(cudnnCreateTensorDescriptor(&net.y_desc));
    CUDNN_CHECK(cudnnCreateTensorDescriptor(&net.bias_desc));
    CUDNN_CHECK(cudnnCreateTensorDescriptor(&net.logits_desc));
    CUDNN_CHECK(cudnnCreateFilterDescriptor(&net.w_desc));
    CUDNN_CHECK(cudnnCreateConvolutionDescriptor(&net.conv_desc));
    CUDNN_CHECK(cudnnCreateActivationDescriptor(&net.relu));
    CUDNN_CHECK(cudnnSetTensor4dDescriptor(net.x_desc, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT,
                                           kBatch, kChannels, kHeight, kWidth));
    CUDNN_CHECK(cudnnSetFilter4dDescriptor(net.w_desc, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW,
                                           kClasses, kChannels, 3, 3));
    CUDNN_CHECK(cudnnSetConvolution2dDescriptor(net.conv_desc, 1, 1, 1, 1, 1, 1,
                                                CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
    int n = 0, c = 0;
    CUDNN_CHECK(cudnnGetConvolution2dForwardOutputDim(net.conv_desc, net.x_desc, net.w_desc,
                                                      &n, &c, &net.out_h, &net.out_w));
    CUDNN_CHECK(cudnnSetTensor4dDescriptor(net.y_desc, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT,
                                           n, c, net.out_h, net.out_w));
    CUDNN_CHECK(cudnnSetTensor4dDescriptor(net.bias_desc, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT,
                                           1, kClasses, 1, 1));
    CUDNN_CHECK(cudnnSetTensor4dDescriptor(net.logits_desc, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT,
                                           kBatch, kClasses, 1, 1));
    CUDNN_CHECK(cudnnSetActivationDescriptor(net.relu, CUDNN_ACTIVATION_RELU, CUDNN_NOT_PROPAGATE_NAN, 0.0));
    CUDNN_CHECK(cudnnGetConvolutionForwardWorkspaceSize(cudnn, net.x_desc, net.w_desc, net.conv_desc,
                                                        net.y_desc, net.algo, &net.ws_bytes));
    return net;
}

inline void destroy_tiny_cnn(TinyCnn& net) {
    CUDNN_CHECK(cudnnDestroyActivationDescriptor(net.relu));
    CUDNN_CHECK(cudnnDestroyConvolutionDescriptor(net.conv_desc));
    CUDNN_CHECK(cudnnDestroyFilterDescriptor(net.w_desc));
    CUDNN_CHECK(cudnnDestroyTensorDescriptor(net.logits_desc));
    CUDNN_CHECK(cudnnDestroyTensorDescriptor(net.bias_desc));
    CUDNN_CHECK(cudnnDestroyTensorDescriptor(net.y_desc));
    CUDNN_CHECK(cudnnDestroyTensorDescriptor(net.x_desc));
}

#pragma once
#include <algorithm>
#include <cstddef>
#include <cuda_runtime.h>
#include <cudnn.h>
#include "check.h"

// Deterministic uniform initialisation in [-scale, scale].
__global__ void init_uniform(float* w, size_t n, float scale, unsigned seed) {
  size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  unsigned h = static_cast<unsigned>(i) * 2654435761u ^ seed;
  h ^= h >> 16;
  h *= 0x85ebca6bu;
  h ^= h >> 13;
  w[i] = scale * (static_cast<float>(h & 0xffffff) / 8388608.0f - 1.0f);
}

// conv2d (3x3, same padding) + bias + ReLU. Each layer owns its cuDNN handle
// and runs on its own non-blocking stream so that independent layers of the
// network can overlap.
class ConvReluLayer {
 public:
  ConvReluLayer(int n, int c, int h, int w, int k, unsigned seed) : n_(n), c_(c), h_(h), w_(w), k_(k) {
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    CUDNN_CHECK(cudnnCreate(&handle_));
    CUDNN_CHECK(cudnnSetStream(handle_, stream_));

    CUDNN_CHECK(cudnnCreateTensorDescriptor(&x_desc_));
    CUDNN_CHECK(cudnnCreateTensorDescriptor(&y_desc_));
    CUDNN_CHECK(cudnnCreateTensorDescriptor(&bias_desc_));
    CUDNN_CHECK(cudnnCreateFilterDescriptor(&w_desc_));
    CUDNN_CHECK(cudnnCreateConvolutionDescriptor(&conv_desc_));
    CUDNN_CHECK(cudnnCreateActivationDescriptor(&act_desc_));

    CUDNN_CHECK(cudnnSetTensor4dDescriptor(x_desc_, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, n, c, h, w));
    CUDNN_CHECK(cudnnSetFilter4dDescriptor(w_desc_, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, k, c, 3, 3));
    CUDNN_CHECK(cudnnSetConvolution2dDescriptor(conv_desc_, 1, 1, 1, 1, 1, 1,
                                                CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
    CUDNN_CHECK(cudnnGetConvolution2dForwardOutputDim(conv_desc_, x_desc_, w_desc_,
                                                      &on_, &ok_, &oh_, &ow_));
    CUDNN_CHECK(cudnnSetTensor4dDescriptor(y_desc_, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, on_, ok_, oh_, ow_));
    CUDNN_CHECK(cudnnSetTensor4dDescriptor(bias_desc_, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, k, 1, 1));
    CUDNN_CHECK(cudnnSetActivationDescriptor(act_desc_, CUDNN_ACTIVATION_RELU,
                                             CUDNN_NOT_PROPAGATE_NAN, 0.0));

    algo_ = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM;
    CUDNN_CHECK(cudnnGetConvolutionForwardWorkspaceSize(handle_, x_desc_, w_desc_, conv_desc_,
                                                        y_desc_, algo_, &ws_bytes_));
    ws_bytes_ = std::max<size_t>(ws_bytes_, 256);
    CUDA_CHECK(cudaMalloc(&workspace_, ws_bytes_));

    const size_t w_elems = static_cast<size_t>(k) * c * 3 * 3;
    CUDA_CHECK(cudaMalloc(&d_w_, w_elems * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_bias_, static_cast<size_t>(k) * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_pre_, output_elems() * sizeof(float)));

    init_uniform<<<static_cast<unsigned>((w_elems + 255) / 256), 256, 0, stream_>>>(
        d_w_, w_elems, 0.1f, seed);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemsetAsync(d_bias_, 0, static_cast<size_t>(k) * sizeof(float), stream_));
  }

  ~ConvReluLayer() {
    cudaStreamSynchronize(stream_);
    cudaFree(d_pre_);
    cudaFree(d_bias_);
    cudaFree(d_w_);
    cudaFree(workspace_);
    cudnnDestroyActivationDescriptor(act_desc_);
    cudnnDestroyConvolutionDescriptor(conv_desc_);
    cudnnDestroyFilterDescriptor(w_desc_);
    cudnnDestroyTensorDescriptor(bias_desc_);
    cudnnDestroyTensorDescriptor(y_desc_);
    cudnnDestroyTensorDescriptor(x_desc_);
    cudnnDestroy(handle_);
    cudaStreamDestroy(stream_);
  }

  ConvReluLayer(const ConvReluLayer&) = delete;
  ConvReluLayer& operator=(const ConvReluLayer&) = delete;

  cudaStream_t stream() const { return stream_; }
  // Blocks the host until everything this layer enqueued has finished.
  void synchronize() const { CUDA_CHECK(cudaStreamSynchronize(stream_)); }
  size_t input_elems() const { return static_cast<size_t>(n_) * c_ * h_ * w_; }
  size_t output_elems() const { return static_cast<size_t>(on_) * ok_ * oh_ * ow_; }

  // Enqueues y = relu(conv(x, w) + b) on the layer's stream and returns.
  void forward(const float* d_x, float* d_y) {
    const float one = 1.0f, zero = 0.0f;
    CUDNN_CHECK(cudnnConvolutionForward(handle_, &one, x_desc_, d_x, w_desc_, d_w_, conv_desc_,
                                        algo_, workspace_, ws_bytes_, &zero, y_desc_, d_pre_));
    CUDNN_CHECK(cudnnAddTensor(handle_, &one, bias_desc_, d_bias_, &one, y_desc_, d_pre_));
    CUDNN_CHECK(cudnnActivationForward(handle_, act_desc_, &one, y_desc_, d_pre_, &zero,
                                       y_desc_, d_y));
  }

 private:
  int n_, c_, h_, w_, k_;
  int on_ = 0, ok_ = 0, oh_ = 0, ow_ = 0;
  cudaStream_t stream_ = nullptr;
  cudnnHandle_t handle_ = nullptr;
  cudnnTensorDescriptor_t x_desc_ = nullptr, y_desc_ = nullptr, bias_desc_ = nullptr;
  cudnnFilterDescriptor_t w_desc_ = nullptr;
  cudnnConvolutionDescriptor_t conv_desc_ = nullptr;
  cudnnActivationDescriptor_t act_desc_ = nullptr;
  cudnnConvolutionFwdAlgo_t algo_;
  void* workspace_ = nullptr;
  size_t ws_bytes_ = 0;
  float* d_w_ = nullptr;
  float* d_bias_ = nullptr;
  float* d_pre_ = nullptr;
};

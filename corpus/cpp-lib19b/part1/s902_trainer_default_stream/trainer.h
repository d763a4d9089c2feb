#pragma once
#include <cstdint>
#include <cuda_runtime.h>
#include <cublas_v2.h>
#include "check.h"

__global__ void softmax_xent_grad(const float* logits, const int* labels,
                                  int classes, int batch, float* dlogits,
                                  float* loss) {
  int b = blockIdx.x * blockDim.x + threadIdx.x;
  if (b >= batch) return;
  const float* z = logits + static_cast<size_t>(b) * classes;
  float m = z[0];
  for (int c = 1; c < classes; ++c) m = fmaxf(m, z[c]);
  float sum = 0.f;
  for (int c = 0; c < classes; ++c) sum += __expf(z[c] - m);
  float* g = dlogits + static_cast<size_t>(b) * classes;
  for (int c = 0; c < classes; ++c) {
    float p = __expf(z[c] - m) / sum;
    g[c] = (p - (c == labels[b] ? 1.f : 0.f)) / batch;
  }
  atomicAdd(loss, (logf(sum) + m - z[labels[b]]) / batch);
}

__global__ void sgd_linear_update(float* W, const float* x, const float* dlogits,
                                  int classes, int features, int batch, float lr) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= classes * features) return;
  int c = idx % classes;
  int f = idx / classes;
  float acc = 0.f;
  for (int b = 0; b < batch; ++b)
    acc += dlogits[static_cast<size_t>(b) * classes + c] *
           x[static_cast<size_t>(b) * features + f];
  W[idx] -= lr * acc;
}

// Everything is issued to the legacy default stream: uploads, cuBLAS (its
// handle was never moved off it) and the custom kernels.
class SoftmaxTrainer {
 public:
  SoftmaxTrainer(cublasHandle_t blas, int features, int classes, int batch)
      : blas_(blas), features_(features), classes_(classes), batch_(batch) {
    CUDA_CHECK(cudaMalloc(&W_, sizeof(float) * classes_ * features_));
    CUDA_CHECK(cudaMalloc(&x_, sizeof(float) * features_ * batch_));
    CUDA_CHECK(cudaMalloc(&y_, sizeof(int) * batch_));
    CUDA_CHECK(cudaMalloc(&logits_, sizeof(float) * classes_ * batch_));
    CUDA_CHECK(cudaMalloc(&dlogits_, sizeof(float) * classes_ * batch_));
    CUDA_CHECK(cudaMalloc(&loss_, sizeof(float)));
    CUDA_CHECK(cudaMallocHost(&h_x_, sizeof(float) * features_ * batch_));
    CUDA_CHECK(cudaMallocHost(&h_y_, sizeof(int) * batch_));
    CUDA_CHECK(cudaMemsetAsync(W_, 0, sizeof(float) * classes_ * features_, 0));
    CUDA_CHECK(cudaMemsetAsync(logits_, 0, sizeof(float) * classes_ * batch_, 0));
  }

  ~SoftmaxTrainer() {
    // Everything was queued on the default stream; drain it (a trainer that
    // never stepped still has its initial memsets queued).
    cudaStreamSynchronize(0);
    cudaFreeHost(h_y_);
    cudaFreeHost(h_x_);
    cudaFree(loss_);
    cudaFree(dlogits_);
    cudaFree(logits_);
    cudaFree(y_);
    cudaFree(x_);
    cudaFree(W_);
  }

  SoftmaxTrainer(const SoftmaxTrainer&) = delete;
  SoftmaxTrainer& operator=(const SoftmaxTrainer&) = delete;

  float step(int iteration, float lr) {
    make_batch(iteration);
    CUDA_CHECK(cudaMemcpyAsync(x_, h_x_, sizeof(float) * features_ * batch_,
                               cudaMemcpyHostToDevice, 0));
    CUDA_CHECK(cudaMemcpyAsync(y_, h_y_, sizeof(int) * batch_,
                               cudaMemcpyHostToDevice, 0));

    const float one = 1.0f, zero = 0.0f;
    CUBLAS_CHECK(cublasSgemm(blas_, CUBLAS_OP_N, CUBLAS_OP_N, classes_, batch_,
                             features_, &one, W_, classes_, x_, features_,
                             &zero, logits_, classes_));

    CUDA_CHECK(cudaMemsetAsync(loss_, 0, sizeof(float), 0));
    softmax_xent_grad<<<(batch_ + 127) / 128, 128>>>(logits_, y_, classes_,
                                                      batch_, dlogits_, loss_);
    CUDA_CHECK(cudaGetLastError());
    const int params = classes_ * features_;
    sgd_linear_update<<<(params + 255) / 256, 256>>>(W_, x_, dlogits_, classes_,
                                                     features_, batch_, lr);
    CUDA_CHECK(cudaGetLastError());

    // Blocking copy on the default stream: returns after the GEMM, both
    // kernels and the copy itself have finished.
    float loss = 0.f;
    CUDA_CHECK(cudaMemcpy(&loss, loss_, sizeof(float), cudaMemcpyDeviceToHost));
    return loss;
  }

 private:
  void make_batch(int iteration) {
    uint32_t state = 0x2545f491u ^ static_cast<uint32_t>(iteration * 104729);
    for (int b = 0; b < batch_; ++b) {
      state = state * 1664525u + 1013904223u;
      int label = static_cast<int>(state >> 8) % classes_;
      h_y_[b] = label;
      for (int f = 0; f < features_; ++f) {
        state = state * 1664525u + 1013904223u;
        float noise = static_cast<float>(state >> 9) / 8388608.0f - 0.5f;
        h_x_[static_cast<size_t>(b) * features_ + f] =
            noise + (f % classes_ == label ? 1.0f : 0.0f);
      }
    }
  }

  cublasHandle_t blas_;
  int features_, classes_, batch_;
  float* W_ = nullptr;
  float* x_ = nullptr;
  int* y_ = nullptr;
  float* logits_ = nullptr;
  float* dlogits_ = nullptr;
  float* loss_ = nullptr;
  float* h_x_ = nullptr;
  int* h_y_ = nullptr;
};

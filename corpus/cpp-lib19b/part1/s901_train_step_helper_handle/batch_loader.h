#pragma once
#include <cstdint>
#include <cuda_runtime.h>
#include "check.h"

// Produces synthetic, linearly separable mini-batches in pinned staging
// buffers and uploads them on the trainer's stream.
class BatchLoader {
 public:
  BatchLoader(int features, int batch, int classes, cudaStream_t stream)
      : features_(features), batch_(batch), classes_(classes), stream_(stream) {
    CUDA_CHECK(cudaMallocHost(&h_x_, sizeof(float) * features_ * batch_));
    CUDA_CHECK(cudaMallocHost(&h_y_, sizeof(int) * batch_));
  }
  ~BatchLoader() {
    cudaFreeHost(h_x_);
    cudaFreeHost(h_y_);
  }
  BatchLoader(const BatchLoader&) = delete;
  BatchLoader& operator=(const BatchLoader&) = delete;

  // Fills d_x (features x batch, column-major) and d_y; returns once the batch
  // is resident on the device.
  void load(int step, float* d_x, int* d_y) {
    uint32_t state = 0x9e3779b9u ^ static_cast<uint32_t>(step * 7919);
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
    CUDA_CHECK(cudaMemcpyAsync(d_x, h_x_, sizeof(float) * features_ * batch_,
                               cudaMemcpyHostToDevice, stream_));
    CUDA_CHECK(cudaMemcpyAsync(d_y, h_y_, sizeof(int) * batch_,
                               cudaMemcpyHostToDevice, stream_));
    CUDA_CHECK(cudaStreamSynchronize(stream_));
  }

 private:
  int features_, batch_, classes_;
  cudaStream_t stream_;
  float* h_x_ = nullptr;
  int* h_y_ = nullptr;
};

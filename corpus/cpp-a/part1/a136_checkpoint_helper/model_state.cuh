// Model parameters on the device with a pinned mirror for checkpoints.
#pragma once
#include <cuda_runtime.h>
#include <cstddef>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(call)                                                        \
  do {                                                                          \
    cudaError_t e_ = (call);                                                    \
    if (e_ != cudaSuccess) {                                                    \
      std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
      std::exit(1);                                                             \
    }                                                                           \
  } while (0)

__global__ void momentum_update(float* __restrict__ w, float* __restrict__ v, const float* __restrict__ g,
                                size_t n, float lr, float mu) {
  size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  v[i] = mu * v[i] + g[i];
  w[i] -= lr * v[i];
}

__global__ void fake_grad(float* g, size_t n, int step) {
  size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (i < n) g[i] = 1e-3f * float((i + step) % 7) - 3e-3f;
}

class ModelState {
 public:
  explicit ModelState(size_t n) : n_(n) {
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    CUDA_CHECK(cudaMalloc(&d_w_, n * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_v_, n * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_g_, n * sizeof(float)));
    CUDA_CHECK(cudaMallocHost(&h_w_, n * sizeof(float)));
    CUDA_CHECK(cudaMemsetAsync(d_w_, 0, n * sizeof(float), stream_));
    CUDA_CHECK(cudaMemsetAsync(d_v_, 0, n * sizeof(float), stream_));
  }
  ~ModelState() {
    sync();
    cudaFreeHost(h_w_);
    cudaFree(d_g_);
    cudaFree(d_v_);
    cudaFree(d_w_);
    cudaStreamDestroy(stream_);
  }
  ModelState(const ModelState&) = delete;
  ModelState& operator=(const ModelState&) = delete;

  void step(int k) {
    fake_grad<<<(n_ + 255) / 256, 256, 0, stream_>>>(d_g_, n_, k);
    momentum_update<<<(n_ + 255) / 256, 256, 0, stream_>>>(d_w_, d_v_, d_g_, n_, 0.1f, 0.9f);
  }

  // Enqueues the device->pinned copy of the weights; call sync() before reading host_weights().
  void stage_checkpoint() {
    CUDA_CHECK(cudaMemcpyAsync(h_w_, d_w_, n_ * sizeof(float), cudaMemcpyDeviceToHost, stream_));
  }

  void sync() const { CUDA_CHECK(cudaStreamSynchronize(stream_)); }

  const float* host_weights() const { return h_w_; }
  size_t size() const { return n_; }

 private:
  size_t n_;
  cudaStream_t stream_ = nullptr;
  float* d_w_ = nullptr;
  float* d_v_ = nullptr;
  float* d_g_ = nullptr;
  float* h_w_ = nullptr;
};

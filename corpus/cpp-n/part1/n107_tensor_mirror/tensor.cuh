// Device tensor with a pinned host mirror (helper of case n107).
#pragma once
#include <cuda_runtime.h>
#include <cstddef>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(call)                                                        \
  do {                                                                          \
    cudaError_t err_ = (call);                                                  \
    if (err_ != cudaSuccess) {                                                  \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
      exit(EXIT_FAILURE);                                                       \
    }                                                                           \
  } while (0)

class PinnedMirrorTensor {
 public:
  explicit PinnedMirrorTensor(size_t n) : n_(n) {
    CUDA_CHECK(cudaMalloc(&dev_, bytes()));
    CUDA_CHECK(cudaMallocHost(&host_, bytes()));
  }
  ~PinnedMirrorTensor() {
    cudaFreeHost(host_);
    cudaFree(dev_);
  }
  PinnedMirrorTensor(const PinnedMirrorTensor&) = delete;
  PinnedMirrorTensor& operator=(const PinnedMirrorTensor&) = delete;

  float* dev() { return dev_; }
  const float* host_data() const { return host_; }
  size_t size() const { return n_; }
  size_t bytes() const { return n_ * sizeof(float); }

  // Enqueues the download; the caller synchronizes `s` before reading host_data().
  void to_host_async(cudaStream_t s) {
    CUDA_CHECK(cudaMemcpyAsync(host_, dev_, bytes(), cudaMemcpyDeviceToHost, s));
  }

 private:
  float* dev_ = nullptr;
  float* host_ = nullptr;
  size_t n_ = 0;
};

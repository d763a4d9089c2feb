#pragma once
// Minimal owning wrapper for an image living in device memory.
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                      \
  do {                                                                        \
    cudaError_t status_ = (call);                                             \
    if (status_ != cudaSuccess) {                                             \
      std::fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__,      \
                   #call, cudaGetErrorString(status_));                       \
      std::exit(EXIT_FAILURE);                                                \
    }                                                                         \
  } while (0)

template <typename T>
class DeviceImage {
 public:
  DeviceImage(int width, int height) : width_(width), height_(height) {
    CUDA_CHECK(cudaMalloc(&data_, bytes()));
  }
  ~DeviceImage() { cudaFree(data_); }

  DeviceImage(const DeviceImage&) = delete;
  DeviceImage& operator=(const DeviceImage&) = delete;

  int width() const { return width_; }
  int height() const { return height_; }
  size_t pixels() const { return static_cast<size_t>(width_) * height_; }
  size_t bytes() const { return pixels() * sizeof(T); }
  T* data() { return data_; }
  const T* data() const { return data_; }

  void upload(const T* host) {
    CUDA_CHECK(cudaMemcpy(data_, host, bytes(), cudaMemcpyHostToDevice));
  }
  void download(T* host) const {
    CUDA_CHECK(cudaMemcpy(host, data_, bytes(), cudaMemcpyDeviceToHost));
  }

 private:
  int width_;
  int height_;
  T* data_ = nullptr;
};

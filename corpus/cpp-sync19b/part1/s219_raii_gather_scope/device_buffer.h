// Minimal owning device array of a recommender's embedding service.
#pragma once
#include <cuda_runtime.h>
#include <cstddef>

template <typename T>
class DeviceBuffer {
 public:
  explicit DeviceBuffer(size_t count) : count_(count) { cudaMalloc(&ptr_, count * sizeof(T)); }
  ~DeviceBuffer() { cudaFree(ptr_); }

  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  T* data() { return ptr_; }
  const T* data() const { return ptr_; }
  size_t size() const { return count_; }
  size_t bytes() const { return count_ * sizeof(T); }

  void upload(const T* host) { cudaMemcpy(ptr_, host, bytes(), cudaMemcpyHostToDevice); }
  void download(T* host) const { cudaMemcpy(host, ptr_, bytes(), cudaMemcpyDeviceToHost); }

 private:
  T* ptr_ = nullptr;
  size_t count_;
};
